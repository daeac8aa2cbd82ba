"""Console pages at workspace scale: every page of the nav, the detail pages and the
/connect/v1 list endpoints, timed and their queries counted, as a signed-in admin.

    .venv/bin/python bench/console_pages.py                   # 20,000 claims, 200 sources
    .venv/bin/python bench/console_pages.py --claims 5000 --rounds 5
    .venv/bin/python bench/console_pages.py --fresh           # rebuild the bench workspace

Runs on its own database (``spanproof_bench_console`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first; the data set is reused between runs.
The workspace is the review-queue bench's (``bench/review_queue.py``: claims by COPY, a
third of them queued, bindings, verdicts with some reviewers' decisions, relations,
traces) over ``SOURCES`` sources, each given ``VERSIONS`` versions (its claims re-resolved
as storing a version does), plus members, ingest
jobs with quality reports, activity rows and state events; a day of ``DECISIONS``
review decisions by ``DECIDERS`` reviewers (some undone, some decided again by another,
for the Decisions page); and a long source of two versions with many changes and
``DIFF_CLAIMS`` claims bound to it, a quarter of whose spans the change loses (for the
paged diff). Requests go through Django's test client (full middleware, session,
templates). Prints one JSON object: per page the
status, the queries one request runs and its p50/max wall time in milliseconds over
``--rounds`` requests; ``slow`` lists the pages over ``SLOW_MS``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

if TYPE_CHECKING:
    from verifier.models import Workspace

BENCH_DB: Final = "spanproof_bench_console"
WORKSPACE_SLUG: Final = "bench-console"
SOURCES: Final = 200
VERSIONS: Final = 3
MEMBERS: Final = 50
JOBS: Final = 300
ACTIVITY: Final = 2_000
SLOW_MS: Final = 300.0
# A day of the Decisions page: DECISIONS rows by DECIDERS reviewers, of which UNDONE are
# undos of the first decisions and REDECIDED are another reviewer's decision on a claim
# decided earlier that day (so every standing the page words shows up).
DECIDERS: Final = 10
DECISIONS: Final = 5_000
UNDONE: Final = 250
REDECIDED: Final = 250
# The paged diff: a source of DIFF_SENTENCES sentences in lines of five, every
# DIFF_EVERY-th reworded in its second version (a word of the same length, so the other
# spans stay where they were), with DIFF_CLAIMS claims bound to every 25th sentence.
DIFF_SENTENCES: Final = 6_000
DIFF_EVERY: Final = 20
DIFF_CLAIMS: Final = 240
DIFF_REF: Final = "source:bench_long_diff"


def _seed(n_claims: int, fresh: bool) -> dict[str, Any]:
    """The review-queue bench's workspace under this bench's slug and source count, then
    what it lacks for the console: more versions, members, jobs, activity, events."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    import bench.review_queue as queue_bench
    from verifier.models import (
        Claim,
        IngestJob,
        Membership,
        Source,
        SourceVersion,
        Workspace,
        WorkspaceEvent,
        text_sha256,
    )
    from verifier.services.claim_state import claims_state_refresh_superseded

    queue_bench.WORKSPACE_SLUG = WORKSPACE_SLUG
    queue_bench.SOURCES = SOURCES
    data = queue_bench._seed(n_claims, fresh)
    workspace = Workspace.objects.get(slug=WORKSPACE_SLUG)
    if data["reused"] and IngestJob.objects.filter(workspace=workspace).exists():
        return data
    started = time.perf_counter()
    User = get_user_model()
    with transaction.atomic():
        admin = User.objects.filter(username="bench-admin").first() or User.objects.create_user(
            "bench-admin"
        )
        Membership.objects.get_or_create(
            workspace=workspace, user=admin, defaults={"role": "admin"}
        )
        for i in range(MEMBERS):
            user = User.objects.filter(username=f"bench-m{i}").first() or User.objects.create_user(
                f"bench-m{i}"
            )
            Membership.objects.get_or_create(
                workspace=workspace, user=user, defaults={"role": ("reviewer", "auditor")[i % 2]}
            )
        for source in Source.objects.filter(workspace=workspace):
            first = source.versions.get(number=1).text
            for number in range(2, VERSIONS + 1):
                text = first.replace("Sentence 1 ", f"Sentence 1 (rev {number}) ", 1)
                version = SourceVersion.objects.create(
                    source=source, number=number, text=text, sha256=text_sha256(text)
                )
            # as storing a version does: its claims re-resolved, stale_source
            claims_state_refresh_superseded(version=version)
        report = {
            "claims": 100,
            "states": {"supported": 70, "unverified": 20, "contradicted": 10},
        }
        IngestJob.objects.bulk_create(
            IngestJob(
                workspace=workspace,
                created_by=admin,
                label=f"Bench job {i}",
                status="succeeded",
                quality_report=report,
            )
            for i in range(JOBS)
        )
        WorkspaceEvent.objects.bulk_create(
            WorkspaceEvent(
                workspace=workspace,
                action="member_added",
                actor={"kind": "member", "name": "bench-admin"},
                target=f"bench-m{i % MEMBERS}",
            )
            for i in range(ACTIVITY)
        )
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO verifier_stateevent (claim_id, from_state, to_state, reason, cause, at)
            SELECT id, 'unverified', state, state_reason, 'bench', created_at
            FROM verifier_claim WHERE workspace_id = %s
            """,
            [workspace.pk],
        )
        cursor.execute("VACUUM ANALYZE")
    data["console_seed_seconds"] = round(time.perf_counter() - started, 1)
    data["claims_in_workspace"] = Claim.objects.filter(workspace=workspace).count()
    return data


def _seed_decisions(workspace: Workspace) -> dict[str, Any]:
    """A day (yesterday, as seeded) of ``DECISIONS`` review decisions by ``DECIDERS``
    reviewers on queued claims, as ``review_decide`` appends them (the claim's active
    binding, ``human:<name>``), and the decided claims' states as the state writer leaves
    them. Skipped when the day is there already."""
    from datetime import datetime, timedelta

    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from verifier.models import Membership, Verdict
    from verifier.state_policy import queue_rank

    if Verdict.objects.filter(claim__workspace=workspace, judge_model="human:bench-d0").exists():
        return {"reused": True}
    started = time.perf_counter()
    User = get_user_model()
    day = timezone.localdate() - timedelta(days=1)
    start = timezone.make_aware(datetime.combine(day, datetime.min.time()))
    first = DECISIONS - UNDONE - REDECIDED
    step = timedelta(hours=20) / first
    labels = ("entailed", "contradicted", "not_stated")
    outcome = {
        "entailed": ("supported", "human_supported"),
        "contradicted": ("contradicted", "human_contradicted"),
        "not_stated": ("unverified", "human_not_stated"),
    }
    with transaction.atomic(), connection.cursor() as cursor:
        deciders = []
        for i in range(DECIDERS):
            name = f"bench-d{i}"
            user = User.objects.filter(username=name).first() or User.objects.create_user(name)
            Membership.objects.get_or_create(
                workspace=workspace, user=user, defaults={"role": "reviewer"}
            )
            deciders.append((user.pk, name))
        # Queued claims no reviewer has decided, spread over the workspace (md5 order).
        cursor.execute(
            """
            SELECT c.id, (SELECT b.id FROM verifier_evidencebinding b
                          WHERE b.claim_id = c.id AND b.is_active ORDER BY b.id DESC LIMIT 1)
            FROM verifier_claim c
            WHERE c.workspace_id = %s AND c.state IN ('unverified', 'contradicted')
                AND c.state_reason NOT LIKE 'human%%'
            ORDER BY md5(c.id::text) LIMIT %s
            """,
            [workspace.pk, first],
        )
        claims = cursor.fetchall()
        rows = []  # (claim, binding, reviewer, name, label, at)
        standing: dict[int, str] = {}
        for k, (claim_id, binding_id) in enumerate(claims):
            reviewer_id, name = deciders[k % DECIDERS]
            label = labels[k % len(labels)]
            at = start + k * step
            rows.append((claim_id, binding_id, reviewer_id, name, label, at))
            standing[claim_id] = label
            if k < UNDONE:  # taken back by its reviewer five minutes later
                later = at + timedelta(minutes=5)
                rows.append((claim_id, binding_id, reviewer_id, name, "withdrawn", later))
                del standing[claim_id]
            elif k < UNDONE + REDECIDED:  # decided again by the next reviewer
                reviewer_id, name = deciders[(k + 1) % DECIDERS]
                label = labels[(k + 1) % len(labels)]
                later = at + timedelta(minutes=10)
                rows.append((claim_id, binding_id, reviewer_id, name, label, later))
                standing[claim_id] = label
        cursor.executemany(
            """
            INSERT INTO verifier_verdict (claim_id, binding_id, judge_model, judge_family,
                prompt_version, label, confidence, note, reviewer_id, at)
            VALUES (%s, %s, 'human:' || %s, 'human', 1, %s, 1.0, '', %s, %s)
            """,
            [(c, b, name, label, r, at) for c, b, r, name, label, at in rows],
        )
        cursor.executemany(
            "UPDATE verifier_claim SET state = %s, state_reason = %s, queue_rank = %s "
            "WHERE id = %s",
            [
                (*outcome[label], queue_rank(outcome[label][1]), claim_id)
                for claim_id, label in standing.items()
            ],
        )
        cursor.execute("ANALYZE verifier_verdict")
        cursor.execute("ANALYZE verifier_claim")
    return {
        "day": day.isoformat(),
        "decisions": len(rows),
        "deciders": DECIDERS,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _seed_long_diff(workspace: Workspace) -> dict[str, Any]:
    """A source of ``DIFF_SENTENCES`` sentences whose second version rewords every
    ``DIFF_EVERY``-th, with ``DIFF_CLAIMS`` of the workspace's unbound claims moved to it
    and bound to every 25th sentence of its first version (a quarter of the spans are in
    a reworded sentence): the diff, the lost and the held spans each run to several
    pages. The workspace's claim count stays as it was. Skipped when it is there."""
    from django.db import connection, transaction

    from verifier.models import Source, SourceVersion, text_sha256
    from verifier.services.claim_state import claims_state_refresh_superseded

    if Source.objects.filter(workspace=workspace, ref=DIFF_REF).exists():
        return {"reused": True}
    started = time.perf_counter()
    sentences = [
        f"Sentence {j} of the long report says item {j * 7 % 1000} moved."
        for j in range(DIFF_SENTENCES)
    ]
    reworded = [
        s.replace(" says ", " sees ") if j % DIFF_EVERY == 0 else s for j, s in enumerate(sentences)
    ]

    def lines(parts: list[str]) -> str:  # five sentences a line
        return "".join(" ".join(parts[i : i + 5]) + "\n" for i in range(0, len(parts), 5))

    first, second = lines(sentences), lines(reworded)
    with transaction.atomic(), connection.cursor() as cursor:
        source = Source.objects.create(
            workspace=workspace, ref=DIFF_REF, title="Bench long report", domain_pack="general"
        )
        v1 = SourceVersion.objects.create(
            source=source, number=1, text=first, sha256=text_sha256(first)
        )
        cursor.execute(
            """
            SELECT c.id FROM verifier_claim c
            WHERE c.workspace_id = %s AND c.state_reason = 'no_evidence'
                AND NOT EXISTS (SELECT 1 FROM verifier_evidencebinding b WHERE b.claim_id = c.id)
            ORDER BY c.id LIMIT %s
            """,
            [workspace.pk, DIFF_CLAIMS],
        )
        claim_ids = [row[0] for row in cursor.fetchall()]
        offsets, at = [], 0
        for s in sentences:
            offsets.append(at)
            at += len(s) + 1
        bindings = []
        for k, claim_id in enumerate(claim_ids):
            j = 25 * k % DIFF_SENTENCES
            quote = sentences[j]
            assert first[offsets[j] : offsets[j] + len(quote)] == quote
            bindings.append((claim_id, v1.pk, quote, offsets[j], offsets[j] + len(quote)))
        cursor.execute(
            "UPDATE verifier_claim SET source_id = %s WHERE id = ANY(%s)", [source.pk, claim_ids]
        )
        cursor.executemany(
            """
            INSERT INTO verifier_evidencebinding (claim_id, source_version_id, quote, start,
                "end", source_hash, match, score, bound_by, is_active, created_at)
            VALUES (%s, %s, %s, %s, %s, %s, 'exact', 1.0, 'quote', true, now())
            """,
            [(*b, v1.sha256) for b in bindings],
        )
        v2 = SourceVersion.objects.create(
            source=source, number=2, text=second, sha256=text_sha256(second)
        )
        claims_state_refresh_superseded(version=v2)
    return {
        "source_chars": len(first),
        "claims_bound": len(claim_ids),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _pages(workspace: Workspace) -> dict[str, str]:
    from django.utils import timezone

    from audit.services import rule_set_builtin_ensure
    from verifier.models import Claim, IngestJob, Source, Trace, Verdict

    claim = Claim.objects.filter(workspace=workspace, state="contradicted").order_by("pk").first()
    source = Source.objects.filter(workspace=workspace).order_by("pk").first()
    trace = Trace.objects.filter(workspace=workspace).order_by("pk").first()
    job = IngestJob.objects.filter(workspace=workspace).order_by("pk").first()
    rule_set = rule_set_builtin_ensure()
    long_source = Source.objects.get(workspace=workspace, ref=DIFF_REF)
    decided = (
        Verdict.objects.filter(claim__workspace=workspace, judge_model="human:bench-d0")
        .order_by("-at")
        .first()
    )
    assert claim and source and trace and job and decided
    day = timezone.localdate(decided.at).isoformat()
    return {
        "home": "/",
        "review_queue": "/review/",
        "review_mine": "/review/?mine=true",
        "review_relations": "/review/relations/",
        "review_item": f"/review/item/{claim.public_id}/",
        "claims": "/audit/claims/",
        "claim": f"/audit/claims/{claim.public_id}/",
        "sources": "/audit/sources/",
        "source": f"/audit/sources/{source.pk}/",
        "source_diff": f"/audit/sources/{source.pk}/diff/?from=1&to={VERSIONS}",
        "source_diff_paged": (
            f"/audit/sources/{long_source.pk}/diff/?from=1&to=2&diff_page=2&lost_page=2&held_page=2"
        ),
        "review_decisions": f"/review/decisions/?day={day}",
        "review_decisions_reviewer": f"/review/decisions/?day={day}&reviewer=bench-d3",
        "review_decisions_last_page": f"/review/decisions/?day={day}&page=100",
        "traces": "/audit/traces/",
        "trace": f"/audit/traces/{trace.trace_id}/",
        "quality": "/audit/quality/",
        "activity": "/audit/activity/",
        "verify": "/verify/",
        "rag": "/audit/rag/",
        "memory": "/audit/memory/",
        "worker": "/worker/console",
        "ingest": "/ingest/",
        "ingest_job": f"/ingest/jobs/{job.pk}/",
        "rules": "/audit/rules/",
        "rule_set": f"/audit/rules/{rule_set.pk}/",
        "calibrators": "/audit/calibrators/",
        "api_keys": "/audit/api-keys/",
        "members": "/audit/members/",
        "webhooks": "/audit/webhooks/",
        "api_claims": "/connect/v1/claims",
        "api_sources": "/connect/v1/sources",
        "api_calibrators": "/connect/v1/calibrators",
        "api_relations": "/connect/v1/relations",
        "api_activity": "/connect/v1/activity",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    parser.add_argument("--only", default="", help="comma-separated page names")
    args = parser.parse_args()

    django_setup(BENCH_DB)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from verifier.models import ApiKey, Workspace, generate_api_key, hash_api_key

    call_command("migrate", verbosity=0, interactive=False)
    data = _seed(args.claims, args.fresh)
    seeded = Workspace.objects.get(slug=WORKSPACE_SLUG)
    data["decisions"] = _seed_decisions(seeded)
    data["long_diff"] = _seed_long_diff(seeded)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False
    workspace = Workspace.objects.get(slug=WORKSPACE_SLUG)
    console = Client()
    console.force_login(get_user_model().objects.get(username="bench-admin"))
    raw = generate_api_key()
    ApiKey.objects.create(
        workspace=workspace, name="bench", prefix=raw[:8], key_hash=hash_api_key(raw), scope="admin"
    )
    api = Client(headers={"Authorization": f"Bearer {raw}"})

    pages: dict[str, dict[str, Any]] = {}
    wanted = {name for name in args.only.split(",") if name}
    for name, url in _pages(workspace).items():
        if wanted and name not in wanted:
            continue
        client = api if url.startswith("/connect/") else console
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
            status = client.get(url).status_code
        samples = []
        for _ in range(args.rounds):
            started = time.perf_counter()
            client.get(url)
            samples.append((time.perf_counter() - started) * 1000)
        pages[name] = {
            "url": url,
            "status": status,
            "queries": len(executed),
            "p50_ms": round(statistics.median(samples), 1),
            "max_ms": round(max(samples), 1),
        }
    print_json(
        {
            "benchmark": "console_pages",
            "database": settings.DATABASES["default"]["NAME"],
            "data": data,
            "pages": pages,
            "slow": sorted(name for name, page in pages.items() if page["p50_ms"] > SLOW_MS),
            "slow_ms": SLOW_MS,
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
