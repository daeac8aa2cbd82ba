"""Review-queue benchmark: the queue page and the next-item call at 100,000 claims.

    .venv/bin/python bench/queue.py              # 100,000 claims, a third in the queue
    .venv/bin/python bench/queue.py --claims 20000 --rounds 30
    .venv/bin/python bench/queue.py --fresh      # rebuild the bench workspace

Runs on its own database (``spanproof_bench_queue`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first; the data set is reused between runs.
Requests go through Django's test client (full middleware, session, templates).
Prints one JSON object with p50/p95 in milliseconds; target p95 <= 100 ms for both.
"""

from __future__ import annotations

import sys
from pathlib import Path

# This file is named queue.py: drop bench/ from the path so the stdlib ``queue``
# (used by celery/kombu/amqp) is not shadowed by it.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
ROOT = _HERE.parent
sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

BENCH_DB = "spanproof_bench_queue"

from bench.database import bench_database_url, percentile  # noqa: E402

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
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from verifier.models import (
        Claim,
        ClaimRelation,
        EvidenceBinding,
        Membership,
        Source,
        SourceVersion,
        Trace,
        TraceClaim,
        Verdict,
        Workspace,
        text_sha256,
    )

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
    weights = [w for _, _, w in QUEUE_MIX]
    claims: list[Claim] = []
    for i in range(n_claims):
        version = versions[i % SOURCES]
        if i % 3 == 0:
            state, reason, _ = rng.choices(QUEUE_MIX, weights=weights)[0]
        else:
            state, reason = "supported", "entailed"
        claims.append(
            Claim(
                workspace=workspace,
                source_id=version.source_id,
                text=f"Bench claim {i}: source {i % SOURCES} says something.",
                original_text=f"Bench claim {i}",
                state=state,
                state_reason=reason,
                origin="imported",
            )
        )
    for offset in range(0, n_claims, BATCH):
        Claim.objects.bulk_create(claims[offset : offset + BATCH], batch_size=BATCH)
    bindings, verdicts = [], []
    for i, claim in enumerate(claims):
        version = versions[i % SOURCES]
        binding = None
        if claim.state_reason != "no_evidence":
            binding = EvidenceBinding(
                claim=claim,
                source_version=version,
                quote=version.text[:30],
                start=0,
                end=30,
                source_hash=version.sha256 if claim.state_reason != "stale_source" else "0" * 64,
                match="exact",
                bound_by="quote",
            )
            bindings.append(binding)
        if claim.state_reason in VERDICT_FOR_REASON:
            label, confidence = VERDICT_FOR_REASON[claim.state_reason]
            human = claim.state_reason == "human_contradicted"
            verdicts.append(
                Verdict(
                    claim=claim,
                    binding=binding,
                    label=label,
                    confidence=confidence,
                    judge_model="human:bench-otto" if human else f"bench-judge-{i % 3}",
                    judge_family="human" if human else "heuristic",
                    prompt_version=1,
                    reviewer=User.objects.get(username="bench-otto") if human else None,
                )
            )
    EvidenceBinding.objects.bulk_create(bindings, batch_size=BATCH)
    Verdict.objects.bulk_create(verdicts, batch_size=BATCH)
    queue = [c for c in claims if c.state != "supported"]
    relations = []
    for _ in range(n_claims // 20):
        a, b = rng.sample(claims, 2)
        relations.append(
            ClaimRelation(workspace=workspace, from_claim=a, to_claim=b, kind="supports")
        )
    ClaimRelation.objects.bulk_create(relations, batch_size=BATCH, ignore_conflicts=True)
    traces = Trace.objects.bulk_create(
        [Trace(workspace=workspace, document={}) for _ in range(200)]
    )
    trace_claims = {
        (rng.randrange(len(traces)), rng.randrange(len(queue))) for _ in range(n_claims // 20)
    }
    TraceClaim.objects.bulk_create(
        [
            TraceClaim(
                trace=traces[t],
                claim=queue[c],
                included=False,
                verification_state=queue[c].state,
            )
            for t, c in trace_claims
        ],
        batch_size=BATCH,
    )
    with connection.cursor() as cursor:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = bench_database_url(BENCH_DB)

    # A DATABASE_URL marks production, which needs a secret key: a bench-only one.

    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-" + "x" * 50)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0, interactive=False)
    data = _seed(args.claims, args.fresh)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False

    from review.models import ReviewLease

    user = get_user_model().objects.get(username="bench-rita")
    client = Client()
    client.force_login(user)

    def queue_page() -> None:
        response = client.get("/review/")
        assert response.status_code == 200, response.status_code

    def queue_page_filtered() -> None:
        response = client.get("/review/?reason=abstained&domain_pack=medical")
        assert response.status_code == 200, response.status_code

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

    results = {
        "benchmark": "review_queue",
        "database": settings.DATABASES["default"]["NAME"],
        "data": data,
        "queue_page": _stats(_time(queue_page, args.rounds)),
        "queue_page_filtered": _stats(_time(queue_page_filtered, args.rounds)),
        "next_item": _stats(_time(next_item, args.rounds)),
        "next_item_after_skip": _stats(_time(next_item_after_skip, args.rounds)),
        "target_p95_ms": TARGET_P95_MS,
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    results["distinct_items_served_by_skip"] = len(set(served))
    results["meets_target"] = all(
        results[key]["p95_ms"] <= TARGET_P95_MS for key in ("queue_page", "next_item")
    )
    ReviewLease.objects.filter(reviewer=user).delete()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
