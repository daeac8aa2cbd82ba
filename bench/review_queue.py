"""Review-queue benchmark: the queue page, the next-item call and the auditor's claim
list at 100,000 claims (or 1,000,000).

    .venv/bin/python bench/review_queue.py                  # 100,000 claims, a third queued
    .venv/bin/python bench/review_queue.py --claims 1000000 # seeded by COPY in a few minutes
    .venv/bin/python bench/review_queue.py --claims 20000 --rounds 30 --runs 3
    .venv/bin/python bench/review_queue.py --fresh          # rebuild the bench workspace

Runs on its own database (``spanproof_bench_queue`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first; the data set is reused between runs.
Requests go through Django's test client (full middleware, session, templates).
Prints one JSON object with p50/p95 in milliseconds (medians over ``--runs`` runs
of ``--rounds`` requests, one process), and ``explain``: EXPLAIN (ANALYZE, BUFFERS) of
each page's main queries (the keyset rows, the capped counts, the lease candidates, the
claim list), as node types, index names and execution time. Target: p95 <= 100 ms for
the queue page and the next item.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, percentile, print_json

BENCH_DB = "spanproof_bench_queue"
WORKSPACE_SLUG = "bench-queue"
SEED = 20261122
TARGET_P95_MS = 100.0
BATCH = 10_000
SOURCES = 40
# Queue reasons and their share of the queue (a third of all claims).
QUEUE_MIX = [
    ("contradicted", "contradicted", 0.08),
    ("unverified", "coverage_gap", 0.10),
    ("unverified", "stale_source", 0.07),
    ("unverified", "low_confidence", 0.15),
    ("unverified", "abstained", 0.30),
    ("unverified", "self_consistency_disagreement", 0.05),
    ("unverified", "no_evidence", 0.23),
    ("contradicted", "human_contradicted", 0.02),
]
VERDICT_FOR_REASON = {
    "contradicted": ("contradicted", 0.9),
    "human_contradicted": ("contradicted", 1.0),
    "coverage_gap": ("coverage_gap", 0.0),
    "stale_source": ("entailed", 0.8),
    "low_confidence": ("entailed", 0.3),
    "abstained": ("abstained", 0.0),
    "self_consistency_disagreement": ("abstained", 0.0),
    "entailed": ("entailed", 0.9),
}


def _seed(n_claims: int, fresh: bool) -> dict:
    """The bench workspace: ``n_claims`` claims (every third in the queue, by
    QUEUE_MIX), their bindings and verdicts, relations and trace rows (a twentieth of
    the claims each). Claims go in by COPY and the rest by INSERT ... SELECT on the
    server, so 1,000,000 claims take minutes, not the ORM's hour; reused when the
    workspace already holds ``n_claims``."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction
    from django.utils import timezone

    from verifier.models import (
        Claim,
        Membership,
        Source,
        SourceVersion,
        Trace,
        Workspace,
        text_sha256,
    )
    from verifier.state_policy import queue_rank

    User = get_user_model()
    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    if workspace is not None and not fresh:
        count = Claim.objects.filter(workspace=workspace).count()
        if count == n_claims:
            return {"reused": True, "claims": count}
    started = time.perf_counter()
    with connection.cursor() as cursor:  # append-only triggers forbid DELETE: truncate
        cursor.execute(
            "TRUNCATE verifier_verdict, verifier_stateevent, verifier_evidencebinding, "
            "verifier_evidencecandidate, verifier_claimrelation, verifier_traceclaim, "
            "verifier_trace, review_reviewlease, review_reviewnote, verifier_claim, "
            "verifier_sourceversion, verifier_source, verifier_membership, "
            "verifier_workspace CASCADE"
        )
    rng = random.Random(SEED)
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=WORKSPACE_SLUG, name="Bench queue")
        for name in ("bench-rita", "bench-otto"):
            user = User.objects.filter(username=name).first() or User.objects.create_user(name)
            Membership.objects.create(workspace=workspace, user=user, role="reviewer")
        versions = []
        for i in range(SOURCES):
            source = Source.objects.create(
                workspace=workspace,
                ref=f"source:bench_{i}",
                title=f"Bench source {i}",
                domain_pack=("general", "medical", "legal")[i % 3],
            )
            text = " ".join(f"Sentence {j} of source {i} says something." for j in range(200))
            versions.append(
                SourceVersion.objects.create(
                    source=source, number=1, text=text, sha256=text_sha256(text)
                )
            )
    otto = User.objects.get(username="bench-otto")
    weights = [w for _, _, w in QUEUE_MIX]
    base = timezone.now() - timedelta(days=60)
    step_us = 60 * 86_400 * 1_000_000 // max(n_claims, 1)
    columns = (
        "workspace_id, public_id, text, original_text, source_id, state, state_reason, "
        "origin, legacy_affirmed, submitted_quote, external_id, metadata, published, "
        "quality, flagged, exclusion_reason, created_at, updated_at, queue_rank"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor, for COPY
        with raw.copy(f"COPY verifier_claim ({columns}) FROM STDIN") as copy:
            for i in range(n_claims):
                if i % 3 == 0:
                    state, reason, _ = rng.choices(QUEUE_MIX, weights=weights)[0]
                else:
                    state, reason = "supported", "entailed"
                # created_at: spread evenly over the last 60 days, in id order
                at = base + timedelta(microseconds=i * step_us)
                copy.write_row(
                    (
                        workspace.pk,
                        f"claim:bq{i:010d}",
                        f"Bench claim {i}: source {i % SOURCES} says something.",
                        f"Bench claim {i}",
                        versions[i % SOURCES].source_id,
                        state,
                        reason,
                        "imported",
                        False,
                        "",
                        "",
                        "{}",
                        False,
                        "",
                        False,
                        "",
                        at,
                        at,
                        queue_rank(reason),  # what the state writer stores with it
                    )
                )
        ws = workspace.pk
        # Fresh statistics before each join over the new rows (else nested loops).
        cursor.execute("ANALYZE verifier_claim")
        cursor.execute(
            """
            INSERT INTO verifier_evidencebinding (claim_id, source_version_id, quote, start,
                "end", source_hash, match, score, bound_by, is_active, created_at)
            SELECT c.id, v.id, left(v.text, 30), 0, 30,
                CASE WHEN c.state_reason = 'stale_source' THEN repeat('0', 64) ELSE v.sha256 END,
                'exact', 1.0, 'quote', true, c.created_at
            FROM verifier_claim c JOIN verifier_sourceversion v ON v.source_id = c.source_id
            WHERE c.workspace_id = %s AND c.state_reason <> 'no_evidence'
            """,
            [ws],
        )
        cursor.execute("ANALYZE verifier_evidencebinding")
        mapping = ", ".join(["(%s, %s, %s)"] * len(VERDICT_FOR_REASON))
        params: list = []
        for reason, (label, confidence) in VERDICT_FOR_REASON.items():
            params += [reason, label, confidence]
        cursor.execute(
            f"""
            INSERT INTO verifier_verdict (claim_id, binding_id, judge_model, judge_family,
                prompt_version, label, confidence, note, reviewer_id, at)
            SELECT c.id, b.id,
                CASE WHEN c.state_reason = 'human_contradicted' THEN 'human:bench-otto'
                     ELSE 'bench-judge-' || ((c.id - f.id) %% 3) END,
                CASE WHEN c.state_reason = 'human_contradicted' THEN 'human'
                     ELSE 'heuristic' END,
                1, m.label, m.confidence, '',
                CASE WHEN c.state_reason = 'human_contradicted' THEN %s::integer END,
                c.created_at
            FROM verifier_claim c
            JOIN (VALUES {mapping}) AS m(reason, label, confidence)
                ON m.reason = c.state_reason
            LEFT JOIN verifier_evidencebinding b ON b.claim_id = c.id
            CROSS JOIN (SELECT min(id) AS id FROM verifier_claim WHERE workspace_id = %s) f
            WHERE c.workspace_id = %s
            ORDER BY c.id
            """,
            [otto.pk, *params, ws, ws],
        )
        cursor.execute(
            "SELECT id, state FROM verifier_claim WHERE workspace_id = %s ORDER BY id", [ws]
        )
        rows = cursor.fetchall()
        ids = [r[0] for r in rows]
        queue = [(r[0], r[1]) for r in rows if r[1] != "supported"]
        pairs = [rng.sample(ids, 2) for _ in range(n_claims // 20)]
        cursor.execute(
            """
            INSERT INTO verifier_claimrelation (workspace_id, from_claim_id, to_claim_id, kind,
                confidence, verification, verification_level, needs_review, created_at)
            SELECT %s, a, b, 'supports', 0.5, 'pending', '', false, now()
            FROM unnest(%s::bigint[], %s::bigint[]) AS p(a, b)
            ON CONFLICT DO NOTHING
            """,
            [ws, [a for a, _ in pairs], [b for _, b in pairs]],
        )
    traces = Trace.objects.bulk_create(
        [Trace(workspace=workspace, document={}) for _ in range(200)]
    )
    trace_claims = sorted(
        {(rng.randrange(len(traces)), rng.randrange(len(queue))) for _ in range(n_claims // 20)}
    )
    with connection.cursor() as cursor:
        cursor.execute(
            """
            INSERT INTO verifier_traceclaim (trace_id, claim_id, included, exclusion_reason,
                verification_state)
            SELECT t, c, false, '', s FROM unnest(%s::bigint[], %s::bigint[], %s::text[])
                AS p(t, c, s)
            """,
            [
                [traces[t].pk for t, _ in trace_claims],
                [queue[c][0] for _, c in trace_claims],
                [queue[c][1] for _, c in trace_claims],
            ],
        )
        cursor.execute("VACUUM ANALYZE")
    return {
        "reused": False,
        "claims": n_claims,
        "in_queue": len(queue),
        "seed_seconds": round(time.perf_counter() - started, 1),
    }


def _time(fn, rounds: int, warmup: int = 3) -> tuple[list[float], list[float]]:
    """Wall-clock and this process's CPU milliseconds per call (the CPU figure leaves
    out PostgreSQL's share but is robust to other load on the machine)."""
    for _ in range(warmup):
        fn()
    wall, cpu = [], []
    for _ in range(rounds):
        started, started_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu


def _stats(samples: tuple[list[float], list[float]]) -> dict:
    wall, cpu = samples
    return {
        "p50_ms": round(statistics.median(wall), 1),
        "p95_ms": round(percentile(wall, 0.95), 1),
        "max_ms": round(max(wall), 1),
        "python_cpu_p50_ms": round(statistics.median(cpu), 1),
        "rounds": len(wall),
    }


def _runs(fn, rounds: int, runs: int) -> dict:
    """``runs`` timed runs of ``rounds`` calls each (one process): the median over the
    runs of each run's p50 and p95, and every run's figures."""
    each = [_stats(_time(fn, rounds)) for _ in range(runs)]
    return {
        "p50_ms": round(statistics.median(r["p50_ms"] for r in each), 1),
        "p95_ms": round(statistics.median(r["p95_ms"] for r in each), 1),
        "python_cpu_p50_ms": round(statistics.median(r["python_cpu_p50_ms"] for r in each), 1),
        "runs": [{k: r[k] for k in ("p50_ms", "p95_ms", "max_ms")} for r in each],
        "rounds_per_run": rounds,
    }


def _plan_summary(plan: dict) -> dict:
    """Node types (with their index) and the indexes a plan reads, its times, buffers."""
    nodes: list[str] = []
    indexes: list[str] = []

    def walk(node: dict) -> None:
        name = node["Node Type"]
        if node.get("Index Name"):
            name += f" using {node['Index Name']}"
            indexes.append(node["Index Name"])
        if node.get("Relation Name") and "Index Name" not in node:
            name += f" on {node['Relation Name']}"
        nodes.append(name)
        for child in node.get("Plans", []):
            walk(child)

    walk(plan["Plan"])
    top = plan["Plan"]
    return {
        "execution_ms": round(plan["Execution Time"], 2),
        "planning_ms": round(plan["Planning Time"], 2),
        "rows": top.get("Actual Rows"),
        "shared_hit": top.get("Shared Hit Blocks"),
        "shared_read": top.get("Shared Read Blocks"),
        "nodes": nodes,
        "indexes": sorted(set(indexes)),
    }


def _explain(call, picks: dict[str, str]) -> dict:
    """EXPLAIN (ANALYZE, BUFFERS) of the SELECTs that ``call`` runs whose SQL contains
    ``picks[label]`` (the first such query per label)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        call()
    out: dict = {}
    for label, needle in picks.items():
        sql = next(
            (
                q["sql"]
                for q in captured.captured_queries
                if needle in q["sql"] and q["sql"].lstrip().upper().startswith("SELECT")
            ),
            None,
        )
        if sql is None:
            out[label] = {"missing": needle}
            continue
        sql = sql.replace(" FOR UPDATE SKIP LOCKED", "").replace(" FOR UPDATE", "")
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql)
            plan = cursor.fetchone()[0]
        if isinstance(plan, str):
            plan = json.loads(plan)
        out[label] = _plan_summary(plan[0])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of --rounds each")
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    args = parser.parse_args()

    django_setup(BENCH_DB)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    migrate_started = time.perf_counter()
    call_command("migrate", verbosity=0, interactive=False)
    migrate_seconds = round(time.perf_counter() - migrate_started, 1)
    data = _seed(args.claims, args.fresh)
    data["migrate_seconds"] = migrate_seconds
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False

    from review.models import ReviewLease
    from review.selectors.cursor import QueueCursor
    from verifier.models import Claim
    from verifier.selectors.paging import NewestFirstCursor

    user = get_user_model().objects.get(username="bench-rita")
    client = Client()
    client.force_login(user)

    # Deep pages: cursors in the middle of the queue and of the claim list.
    queued = Claim.objects.filter(workspace__slug=WORKSPACE_SLUG, state_reason="abstained")
    middle = queued.order_by("id")[queued.count() // 2]
    queue_cursor = QueueCursor(
        middle.queue_rank, middle.dependents, middle.created_at, middle.pk
    ).token
    everything = Claim.objects.filter(workspace__slug=WORKSPACE_SLUG).order_by("id")
    deep = everything[everything.count() // 2]
    list_cursor = NewestFirstCursor(deep.created_at, deep.pk).token

    def get(url: str, status: int = 200):
        def call() -> None:
            response = client.get(url)
            assert response.status_code == status, (url, response.status_code)

        return call

    queue_page = get("/review/")
    queue_page_filtered = get("/review/?reason=abstained&domain_pack=medical")
    queue_page_deep = get(f"/review/?after={queue_cursor}&page=2")
    claim_list_first = get("/audit/claims/")
    claim_list_deep = get(f"/audit/claims/?after={list_cursor}&page=2")
    claim_list_filtered = get("/audit/claims/?state=contradicted")

    def next_item() -> None:
        response = client.post("/review/start/")
        assert response.status_code == 302, response.status_code

    served: list[str] = []

    def next_item_after_skip() -> None:
        # Work through the queue: skip the held item, get the next one (htmx path).
        lease = ReviewLease.objects.filter(reviewer=user).select_related("claim").first()
        if lease is None:
            client.post("/review/start/")
            lease = ReviewLease.objects.filter(reviewer=user).select_related("claim").first()
        response = client.post(
            f"/review/item/{lease.claim.public_id}/skip/",
            HTTP_HX_REQUEST="true",
            HTTP_HX_TARGET="review-item",
        )
        assert response.status_code == 200, response.status_code
        served.append(response["HX-Push-Url"])

    keyset = 'ORDER BY ("verifier_claim"."queue_rank")'
    explain = {
        "queue_page": _explain(queue_page, {"rows": keyset, "counts": "SELECT (SELECT count(*)"}),
        "queue_page_filtered": _explain(
            queue_page_filtered, {"rows": keyset, "counts": "SELECT (SELECT count(*)"}
        ),
        "queue_page_deep": _explain(queue_page_deep, {"rows": keyset}),
        "next_item": _explain(next_item, {"lease_candidates": keyset}),
        "claim_list_first": _explain(
            claim_list_first,
            {
                "rows": 'ORDER BY "verifier_claim"."created_at" DESC',
                "count": "SELECT (SELECT count(*)",
            },
        ),
        "claim_list_deep": _explain(
            claim_list_deep, {"rows": 'ORDER BY "verifier_claim"."created_at" DESC'}
        ),
    }
    ReviewLease.objects.filter(reviewer=user).delete()

    rounds, runs = args.rounds, args.runs
    results = {
        "benchmark": "review_queue",
        "database": settings.DATABASES["default"]["NAME"],
        "data": data,
        "queue_page": _runs(queue_page, rounds, runs),
        "queue_page_filtered": _runs(queue_page_filtered, rounds, runs),
        "queue_page_deep": _runs(queue_page_deep, rounds, runs),
        "next_item": _runs(next_item, rounds, runs),
        "next_item_after_skip": _runs(next_item_after_skip, rounds, runs),
        "claim_list_first": _runs(claim_list_first, rounds, runs),
        "claim_list_deep": _runs(claim_list_deep, rounds, runs),
        "claim_list_filtered": _runs(claim_list_filtered, rounds, runs),
        "explain": explain,
        "target_p95_ms": TARGET_P95_MS,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    results["distinct_items_served_by_skip"] = len(set(served))
    results["meets_target"] = all(
        results[key]["p95_ms"] <= TARGET_P95_MS for key in ("queue_page", "next_item")
    )
    ReviewLease.objects.filter(reviewer=user).delete()
    print_json(results)


if __name__ == "__main__":
    main()
