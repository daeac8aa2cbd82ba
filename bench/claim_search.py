"""Claim and source search at workspace scale: the review queue's search box, the auditor's
claim list and source list searched (``?q=``), and what one search costs in the database
under each form of the rule.

    .venv/bin/python bench/claim_search.py                   # 100,000 claims, 200 sources
    .venv/bin/python bench/claim_search.py --claims 20000 --rounds 5
    .venv/bin/python bench/claim_search.py --fresh           # rebuild the bench workspace

Runs on its own database (``spanproof_bench_search`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first; the data set is reused between runs.
The workspace is the review-queue bench's (``bench/review_queue.py``: claims by COPY, a
third of them queued) over ``SOURCES`` sources, with ``ACCENTED_SHARE`` of the claims
rewritten to name Gödel, a café and Zürich (half composed, half decomposed) and a few
Ørsted, Łódź and Straße, so that folded queries find something. Requests go through
Django's test client as a reviewer (full middleware, session, templates).

Prints one JSON object: ``pages``: per page and query, the status, the rows it lists
(the page's first page), the queries one request runs and the p50/p95 wall time in
milliseconds (medians over ``--runs`` runs of ``--rounds`` requests); ``explain``: the
execution time of each searched page's main queries (EXPLAIN ANALYZE); ``rule_forms``:
paired timing of a count of the matching claims in the review queue's and the claim
list's search as each ran before the one rule (the queue's plain ``icontains`` over text,
ref and title, the list's NFC-composed ``icontains``), with the rule's fold computed per
row at query time, and as they run now on the stored folded columns, with the ratio of
now to before (a machine's drift cancels in it; two runs minutes apart do not);
``pages_paired``: the same pairing for whole pages, the old search swapped in for every
other request.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

BENCH_DB: Final = "spanproof_bench_search"
WORKSPACE_SLUG: Final = "bench-search"
SOURCES: Final = 200
# Every ACCENTED_EVERY-th claim names Gödel (composed), the one after it too (decomposed).
ACCENTED_EVERY: Final = 25
ACCENTED_SHARE: Final = 2 / ACCENTED_EVERY
# Every LETTERS_EVERY-th claim names Ørsted, Łódź and Straße.
LETTERS_EVERY: Final = 97
QUERIES: Final = {
    "folded_rare": "godel",  # 8% of the claims, found only by folding
    "accented": "Gödel",  # the same claims, as typed with its accent
    "letters": "lodz",  # about 1%, a stroke letter and an accent folded
    "common": "says something",  # nearly every claim
    "none": "no such words here",  # nothing: the whole list is read
    "wildcard": "100%_",  # LIKE wildcards, literally: nothing
}
SOURCE_QUERIES: Final = {"ref": "source:bench_7", "title": "BENCH SOURCE 19", "none": "zzz"}


def _seed(n_claims: int, fresh: bool) -> dict[str, Any]:
    """The review-queue bench's workspace under this bench's slug and source count, then
    ``ACCENTED_SHARE`` of its claims renamed with accented words (by one UPDATE on the
    server, so a stored folded column is written as any write would)."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    import bench.review_queue as queue_bench
    from verifier.models import Membership, Workspace

    queue_bench.WORKSPACE_SLUG = WORKSPACE_SLUG
    queue_bench.SOURCES = SOURCES
    data: dict[str, Any] = queue_bench._seed(n_claims, fresh)
    if data["reused"]:
        return data
    started = time.perf_counter()
    workspace = Workspace.objects.get(slug=WORKSPACE_SLUG)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            """
            UPDATE verifier_claim SET text = CASE
                WHEN id %% %(every)s = 0 THEN
                    'Bench claim ' || id || ': Kurt ' || normalize('Gödel', NFC)
                    || ' wrote it in a ' || normalize('café in Zürich', NFC) || '.'
                WHEN id %% %(every)s = 1 THEN
                    'Bench claim ' || id || ': Kurt ' || normalize('Gödel', NFD)
                    || ' wrote it in a ' || normalize('café in Zürich', NFD) || '.'
                ELSE 'Bench claim ' || id || ': Ørsted went from Łódź to the Straße.'
            END
            WHERE workspace_id = %(ws)s
                AND (id %% %(every)s IN (0, 1) OR id %% %(letters)s = 2)
            """,
            {"every": ACCENTED_EVERY, "letters": LETTERS_EVERY, "ws": workspace.pk},
        )
        admin = get_user_model().objects.get(username="bench-rita")
        Membership.objects.filter(workspace=workspace, user=admin).update(role="admin")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE verifier_claim")
    data["accented_seed_seconds"] = round(time.perf_counter() - started, 1)
    return data


# The searches as each list ran them before the one rule, and as they run now: a count of
# the matching claims (what the pages' capped counts read in the worst case, every row).
_QUEUE_SQL: Final = """
    SELECT count(*) FROM verifier_claim c JOIN verifier_source s ON s.id = c.source_id
    WHERE c.workspace_id = %(ws)s AND c.state IN ('unverified', 'contradicted')
        AND ({text} OR c.public_id = %(raw)s OR {ref} OR {title})
"""
_LIST_SQL: Final = "SELECT count(*) FROM verifier_claim c WHERE c.workspace_id = %(ws)s AND {text}"


def _rule_forms(workspace_id: int, rounds: int) -> dict[str, Any]:
    """Paired timing (``rounds`` rounds, each running every form once, in turn) of the
    review queue's and the claim list's search for ``QUERIES`` "folded_rare" and "none",
    in their form before the one rule (the queue's plain ``icontains``, the list's
    NFC-composed ``icontains``), the rule's fold computed per row at query time, and the
    stored folded columns the rule reads now: the median milliseconds, the rows each
    finds, and the ratio of now to before."""
    from django.db import connection

    from verifier.text.search_fold import search_fold_sql, search_query

    def icontains(column: str) -> str:
        return f"UPPER({column}) LIKE UPPER(%(like)s)"

    def nfc_icontains(column: str) -> str:
        return f"UPPER(normalize({column}, NFC)) LIKE UPPER(%(like)s)"

    def per_row(column: str) -> str:
        return f"{search_fold_sql(column)} LIKE %(folded)s"

    def stored(column: str) -> str:
        return f"{column}_folded LIKE %(folded)s"

    forms = {
        "review_queue_before": _QUEUE_SQL.format(
            text=icontains("c.text"), ref=icontains("s.ref"), title=icontains("s.title")
        ),
        "review_queue_fold_per_row": _QUEUE_SQL.format(
            text=per_row("c.text"), ref=per_row("s.ref"), title=per_row("s.title")
        ),
        "review_queue_now": _QUEUE_SQL.format(
            text=stored("c.text"), ref=stored("s.ref"), title=stored("s.title")
        ),
        "claim_list_before": _LIST_SQL.format(text=nfc_icontains("c.text")),
        "claim_list_fold_per_row": _LIST_SQL.format(text=per_row("c.text")),
        "claim_list_now": _LIST_SQL.format(text=stored("c.text")),
    }
    out: dict[str, Any] = {}
    with connection.cursor() as cursor:
        cursor.execute("SET max_parallel_workers_per_gather = 0")  # one core, as a page gets
        for query_name in ("folded_rare", "none"):
            raw = QUERIES[query_name]
            params = {
                "ws": workspace_id,
                "raw": raw,
                "like": f"%{raw}%",
                "folded": f"%{search_query(raw)}%",
            }
            samples: dict[str, list[float]] = {name: [] for name in forms}
            found: dict[str, int] = {}
            names = list(forms)
            for round_ in range(rounds):
                for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
                    started = time.perf_counter()
                    cursor.execute(forms[name], params)
                    found[name] = cursor.fetchone()[0]
                    samples[name].append((time.perf_counter() - started) * 1000)
            medians = {name: statistics.median(ms) for name, ms in samples.items()}
            out[query_name] = {
                "query": raw,
                "forms": {
                    name: {"median_ms": round(medians[name], 1), "rows": found[name]}
                    for name in forms
                },
                "now_over_before": {
                    lst: round(medians[f"{lst}_now"] / medians[f"{lst}_before"], 2)
                    for lst in ("review_queue", "claim_list")
                },
            }
        cursor.execute("RESET max_parallel_workers_per_gather")
    return out


def _pages_paired(client: Any, rounds: int) -> dict[str, Any]:
    """The review queue's and the claim list's pages searched, each request made once
    with the search as it was before the one rule (swapped in for that request: the
    queue's plain ``icontains`` over text, id, ref and title, the list's NFC-composed
    ``icontains``) and once as it is, in turn, ``rounds`` times: the median milliseconds
    of each and their ratio. For the queries both forms list alike ("common", "none",
    "wildcard") this is the page's before and after under the same load."""
    import unicodedata
    from urllib.parse import urlencode

    from django.db.models import F, Func, Q, QuerySet, TextField
    from django.db.models.lookups import IContains

    import verifier.selectors.claim_filters as claim_filters
    from review.filters import ReviewQueueFilter

    def queue_before(self: Any, queryset: QuerySet[Any], name: str, value: str) -> Any:
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(text__icontains=value)
            | Q(public_id=value)
            | Q(source__ref__icontains=value)
            | Q(source__title__icontains=value)
        )

    def list_before(query: str, *fields: str) -> Q:
        composed = Func(F("text"), template="normalize(%(expressions)s, NFC)")
        composed.output_field = TextField()
        return Q(IContains(composed, unicodedata.normalize("NFC", query)))

    swaps = {
        "review_queue": (ReviewQueueFilter, "filter_search", queue_before, "/review/?"),
        "claims": (claim_filters, "text_search", list_before, "/audit/claims/?"),
    }
    out: dict[str, Any] = {}
    for page, (owner, attribute, before, path) in swaps.items():
        now = getattr(owner, attribute)
        for name in ("common", "none", "wildcard", "folded_rare"):
            url = path + urlencode({"q": QUERIES[name]})
            samples: dict[str, list[float]] = {"before": [], "now": []}
            for round_ in range(rounds):
                for form in ("before", "now") if round_ % 2 else ("now", "before"):
                    setattr(owner, attribute, before if form == "before" else now)
                    try:
                        started = time.perf_counter()
                        assert client.get(url).status_code == 200, url
                        samples[form].append((time.perf_counter() - started) * 1000)
                    finally:
                        setattr(owner, attribute, now)
            medians = {form: statistics.median(ms) for form, ms in samples.items()}
            out[f"{page}?q={name}"] = {
                "before_p50_ms": round(medians["before"], 1),
                "now_p50_ms": round(medians["now"], 1),
                "now_over_before": round(medians["now"] / medians["before"], 2),
            }
    return out


def _listed(html: str) -> int:
    """The rows a list page shows (its table's body rows)."""
    body = html.split("<tbody", 1)[1].split("</tbody>", 1)[0] if "<tbody" in html else ""
    return len(re.findall(r"<tr\b", body))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of --rounds each")
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    args = parser.parse_args()

    django_setup(BENCH_DB)
    from urllib.parse import urlencode

    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from bench.review_queue import _explain, _runs
    from verifier.models import Workspace

    migrate_started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrate_seconds = round(time.perf_counter() - migrate_started, 1)
    data = _seed(args.claims, args.fresh)
    data["migrate_seconds"] = migrate_seconds
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False
    workspace = Workspace.objects.get(slug=WORKSPACE_SLUG)
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-rita"))

    urls: dict[str, str] = {"review_queue": "/review/", "claims": "/audit/claims/"}
    for name, query in QUERIES.items():
        urls[f"review_queue?q={name}"] = "/review/?" + urlencode({"q": query})
        urls[f"claims?q={name}"] = "/audit/claims/?" + urlencode({"q": query})
    for name, query in SOURCE_QUERIES.items():
        urls[f"sources?q={name}"] = "/audit/sources/?" + urlencode({"q": query})

    pages: dict[str, dict[str, Any]] = {}
    explain: dict[str, Any] = {}
    for name, url in urls.items():
        executed: list[str] = []

        def count(
            execute: Any,
            sql: str,
            params: Any,
            many: bool,
            context: Any,
            executed: list[str] = executed,
        ) -> Any:
            executed.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            response = client.get(url)

        def call(url: str = url) -> None:
            assert client.get(url).status_code == 200, url

        timed = _runs(call, args.rounds, args.runs)
        pages[name] = {
            "url": url,
            "status": response.status_code,
            "listed": _listed(response.content.decode()),
            "queries": len(executed),
            "p50_ms": timed["p50_ms"],
            "p95_ms": timed["p95_ms"],
        }
        if name.startswith("review_queue?"):
            picks = {
                "rows": 'ORDER BY ("verifier_claim"."queue_rank")',
                "counts": "SELECT (SELECT count(*)",
            }
        elif name.startswith("claims?"):
            picks = {
                "rows": 'ORDER BY "verifier_claim"."created_at" DESC',
                "count": "SELECT (SELECT count(*)",
            }
        else:
            continue
        explain[name] = {
            label: {k: plan.get(k) for k in ("execution_ms", "rows", "missing") if k in plan}
            for label, plan in _explain(call, picks).items()
        }
    print_json(
        {
            "benchmark": "claim_search",
            "database": settings.DATABASES["default"]["NAME"],
            "data": data,
            "queries": QUERIES | {f"source {k}": v for k, v in SOURCE_QUERIES.items()},
            "pages": pages,
            "explain": explain,
            "pages_paired": _pages_paired(client, rounds=max(args.rounds, 7)),
            "rule_forms": _rule_forms(workspace.pk, rounds=max(args.rounds, 7)),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
