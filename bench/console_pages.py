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
jobs with quality reports, activity rows and state events. Requests go through Django's
test client (full middleware, session, templates). Prints one JSON object: per page the
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


def _pages(workspace: Workspace) -> dict[str, str]:
    from audit.services import rule_set_builtin_ensure
    from verifier.models import Claim, IngestJob, Source, Trace

    claim = Claim.objects.filter(workspace=workspace, state="contradicted").order_by("pk").first()
    source = Source.objects.filter(workspace=workspace).order_by("pk").first()
    trace = Trace.objects.filter(workspace=workspace).order_by("pk").first()
    job = IngestJob.objects.filter(workspace=workspace).order_by("pk").first()
    rule_set = rule_set_builtin_ensure()
    assert claim and source and trace and job
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
