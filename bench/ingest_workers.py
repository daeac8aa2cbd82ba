"""One ingest job on 1, then 2 (``--workers``) real Celery worker processes on Redis.

    .venv/bin/python -m bench.ingest_workers [--docs 40] [--doc-bytes 5000]
                                             [--workers 1,2] [--shards 2]
                                             [--redis redis://127.0.0.1:6379/14]

Uses its own ``bench_ingest_workers`` database (created afresh). For each worker count
N, N ``celery worker`` processes (prefork, one child each, the runtime role,
``SPANPROOF_INGEST_SHARDS=--shards``) are started and warmed up (each runs a one-source
job first, so model loading is not timed), then a job over the same ``--docs``
synthetic documents (``bench/ingest.py``'s) goes into a fresh workspace; the clock runs
from creating the job to its end. Prints JSON per N: wall seconds, claims/s, seconds per
stage (from the items' finish times), items done per worker process, and duplicates
found: claims with the same (source, text) more than once, model verdicts more than one
per claim, items not done (all must be 0). The load average is printed too: on a shared
machine two workers cannot beat the cores they get.

Each of the N processes gets ``cores ÷ N`` threads for its models
(``SPANPROOF_WORKER_THREADS``), as README "Running N workers" tells a deployment of
several worker processes on one machine to do; ``--worker-threads auto`` leaves the
setting unset (each process then sizes itself for its own concurrency, all the cores
here), ``--worker-threads 2`` gives every process two.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
os.environ.setdefault("SPANPROOF_TEST_DB", "bench_ingest_workers")

from bench._common import ROOT, django_setup, print_json

REDIS_URL = "redis://127.0.0.1:6379/14"


def _database_url() -> str:
    from django.conf import settings
    from django.db import connection

    conn = connection.settings_dict
    host = quote(conn["HOST"], safe="")
    return f"postgres://{settings.DATABASE_RUNTIME_USER}@{host}:{conn['PORT']}/{conn['NAME']}"


def _start(count: int, env: dict[str, str], queue: str, logs: Path) -> list[subprocess.Popen]:
    workers = []
    for i in range(count):
        log = (logs / f"worker{count}-{i}.log").open("ab")
        workers.append(
            subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=prefork",
                 "--concurrency=1", "-Q", queue, "--without-mingle", "--without-gossip",
                 "-l", "warning", "-n", f"bench{i}@%h"],
                cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        )  # fmt: skip
    return workers


def _stop(workers: list[subprocess.Popen]) -> None:
    import signal

    for worker in workers:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
    for worker in workers:
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


def _run(workspace, docs: list[str], label: str, timeout: float):
    from verifier.models import IngestJob
    from verifier.services.ingest_create import SourceUpload, ingest_job_create

    started = time.perf_counter()
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref=f"source:{label}_{i}", text=d) for i, d in enumerate(docs)],
        label=label,
    )
    deadline = time.monotonic() + timeout
    while IngestJob.objects.get(pk=job.pk).status in ("queued", "running"):
        if time.monotonic() > deadline:
            raise SystemExit(f"job {job.pk} did not finish in {timeout} s")
        time.sleep(0.1)
    elapsed = time.perf_counter() - started
    job.refresh_from_db()
    return job, elapsed


def _figures(job, elapsed: float) -> dict:
    from django.db.models import Max, Min

    from verifier.models import Claim, IngestItem, Verdict
    from verifier.models.ingest import STAGE_ORDER

    claims = Claim.objects.filter(ingest_job=job)
    items = IngestItem.objects.filter(job=job)
    stage_spans = {}
    previous_end = job.started_at
    for stage in STAGE_ORDER:
        span = items.filter(stage=stage).aggregate(end=Max("finished_at"), first=Min("finished_at"))
        if span["end"] is not None:
            stage_spans[stage] = round((span["end"] - previous_end).total_seconds(), 2)
            previous_end = span["end"]
    per_worker: dict[str, dict[str, int]] = {}
    for done_by, stage in items.values_list("done_by", "stage"):
        per_worker.setdefault(done_by, Counter())[stage] += 1
    same_text = Counter(claims.values_list("source_id", "original_text"))
    verdicts = Counter(
        Verdict.objects.filter(claim__ingest_job=job, reviewer__isnull=True).values_list(
            "claim_id", flat=True
        )
    )
    count = claims.count()
    return {
        "job_status": job.status,
        "failed_items": len(job.errors),
        "claims": count,
        "seconds_wall": round(elapsed, 2),
        "claims_per_s": round(count / elapsed, 1),
        "seconds_per_stage": stage_spans,
        "items_done_per_worker": {k: dict(v) for k, v in sorted(per_worker.items())},
        "duplicates": {
            "claims_same_source_and_text": sum(n - 1 for n in same_text.values() if n > 1),
            "verdicts_beyond_one_per_claim": sum(n - 1 for n in verdicts.values() if n > 1),
            "items_not_done": items.exclude(status="done").count(),
        },
        "near_duplicate_claims": claims.filter(duplicate_of__isnull=False).count(),
    }


def _worker_threads(choice: str, processes: int) -> int | None:
    """``SPANPROOF_WORKER_THREADS`` for each of ``processes`` workers on this machine."""
    if choice == "auto":
        return None
    if choice == "share":  # the CPUs a worker counts (verifier/worker_threads.py)
        from celery.utils.sysinfo import cpu_budget

        return max(1, cpu_budget().count // processes)
    return int(choice)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--doc-bytes", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--redis", default=REDIS_URL)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument(
        "--worker-threads",
        default="share",
        help="model threads per process: share (cores / processes), auto (unset) or a number",
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]

    os.environ["CELERY_BROKER_URL"] = args.redis  # this process sends to the same broker
    os.environ["SPANPROOF_INGEST_SHARDS"] = str(args.shards)
    django_setup()
    import redis
    from django.test.utils import setup_databases

    from bench.ingest import _drop_bench_database, make_document
    from config.database_roles import as_owner
    from verifier.models import Workspace

    with as_owner():
        _drop_bench_database()
        setup_databases(verbosity=0, interactive=False, keepdb=True)
    redis.Redis.from_url(args.redis).flushdb()
    queue = "celery"
    logs = ROOT / "var" / "bench-ingest-workers"
    logs.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "CELERY_BROKER_URL": args.redis,
        "SPANPROOF_INGEST_SHARDS": str(args.shards),
        "HF_HUB_OFFLINE": "1",
        "DJANGO_SECRET_KEY": os.environ.get("DJANGO_SECRET_KEY") or "bench-" + "k" * 50,
    }
    env.pop("DATABASE_OWNER_URL", None)
    rng = random.Random(args.seed)
    docs = [make_document(rng, args.doc_bytes) for _ in range(args.docs)]
    runs = {}
    stamp = int(time.time())
    for count in counts:
        threads = _worker_threads(args.worker_threads, count)
        env.pop("SPANPROOF_WORKER_THREADS", None)
        if threads is not None:
            env["SPANPROOF_WORKER_THREADS"] = str(threads)
        workers = _start(count, env, queue, logs)
        try:
            warm = Workspace.objects.create(slug=f"warm-{count}-{stamp}", name="warm up")
            for i in range(count):  # one small job per worker process: models loaded
                _run(warm, [docs[i][:400]], f"warm{i}", args.timeout)
            workspace = Workspace.objects.create(slug=f"bench-w{count}-{stamp}", name=f"{count}")
            load_before = os.getloadavg()
            job, elapsed = _run(workspace, docs, f"w{count}", args.timeout)
            load_after = os.getloadavg()
        finally:
            _stop(workers)
        runs[f"{count}_workers"] = {
            **_figures(job, elapsed),
            "model_threads_per_process": threads or "auto",
            "load_average_1_5_15_before": [round(x, 2) for x in load_before],
            "load_average_1_5_15_after": [round(x, 2) for x in load_after],
        }
    report = {
        "docs": args.docs,
        "doc_bytes": args.doc_bytes,
        "shards": args.shards,
        "broker": args.redis,
        "cpu_count": os.cpu_count(),
        "runs": runs,
    }
    if len(counts) == 2:
        a, b = (runs[f"{n}_workers"]["seconds_wall"] for n in counts)
        report[f"speedup_{counts[1]}_vs_{counts[0]}"] = round(a / b, 2)
    print_json(report)


if __name__ == "__main__":
    main()
