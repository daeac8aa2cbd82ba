"""Ingest throughput: N documents of ~5 KB through the whole pipeline, in-process.

    .venv/bin/python -m bench.ingest [--docs 200] [--doc-bytes 5000]
                                     [--resident-docs 50] [--reuse-db]
                                     [--workspace-claims 200000]

Uses its own ``bench_ingest`` database, created afresh for every run (``--reuse-db``
ingests into what earlier runs left there: autovacuum of a claims table and HNSW index
that grow by 11,656 rows a run then competes with the pipeline for the two cores, so
figures drift run after run). Untimed, a resident workspace of ``--resident-docs``
documents goes through the pipeline first (see ``RESIDENT_DOCS``; 0 times a cold start
on an empty index). Then, timed, a new ``bench-ingest-<time>`` workspace gets the
synthetic documents (deterministic, varied declarative sentences) through the seven
stages in order in this process (the same stage services the Celery tasks call).
``--workspace-claims N`` first fills that workspace, untimed, with N published claims
whose vectors are real MiniLM vectors of training-prose sentences plus noise
(``bench/workspace_fill.py`` says how), so the job's costs that grow with the
workspace show: compare its claims/s with a run into an empty workspace. The
claim texts are embedded with nothing else running before and after that run
(embed-only throughput, the mean of the two). Prints JSON: claims/s end to end,
embed-only claims/s, their ratio (target >= 0.3, the judge issue's), seconds per stage,
the seconds of the group stage spent on the nearest-earlier-claim search and of the store stage on
publishing (HNSW inserts), and the WAL written, its full-page images and the
checkpoints during the job.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
# Its own database on the same server, so the benchmark never depends on, or writes
# into, the development database.
os.environ.setdefault("SPANPROOF_TEST_DB", "bench_ingest")

from bench._common import django_setup, print_json

SUBJECTS = [
    "The Marrow River delta",
    "Harbour sediment",
    "The northern salt marsh",
    "Dune grass",
    "The tidal channel",
    "Spring floodwater",
    "The Halden Point lighthouse",
    "Oyster reefs",
    "The estuary's mudflats",
    "Winter storm surge",
    "The Kessel dam",
    "Local fishing crews",
    "Migratory geese",
    "The coastal aquifer",
    "Dredging barges",
    "Reed beds",
]
VERBS = [
    "slows",
    "carries",
    "shelters",
    "traps",
    "erodes",
    "feeds",
    "raises",
    "lowers",
    "protects",
    "floods",
    "drains",
    "stabilises",
    "buries",
    "exposes",
    "supports",
    "reshapes",
]
OBJECTS = [
    "fine silt",
    "the outer marsh",
    "young fish",
    "the main channel",
    "nesting birds",
    "the eastern shore",
    "brackish water",
    "the seawall",
    "spawning grounds",
    "the old quay",
    "peat layers",
    "the river mouth",
    "shallow lagoons",
    "the sandbar",
    "mussel beds",
]
TAILS = [
    "in wet years",
    "during spring tides",
    "after heavy rain",
    "each autumn",
    "when the current weakens",
    "near Halden Point",
    "along the southern bank",
    "for most of the winter",
    "since the dam was built in 1962",
    "at high tide",
]


def make_document(rng: random.Random, size: int) -> str:
    sentences = []
    while sum(len(s) + 1 for s in sentences) < size:
        sentences.append(
            f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
            f"{rng.choice(TAILS)}, according to survey {rng.randint(1, 9999)}."
        )
    paragraphs = [" ".join(sentences[i : i + 5]) for i in range(0, len(sentences), 5)]
    return "\n\n".join(paragraphs)


# The timed job runs against a database that already serves another workspace: the
# first few thousand inserts into an empty HNSW graph write about three times the WAL
# of later ones (every neighbour list still has room), which is not the steady state.
RESIDENT_DOCS: Final = 50


def _drop_bench_database() -> None:
    """Drop the benchmark database even while an autovacuum worker is still in it
    (``WITH (FORCE)``, which Django's own test-database teardown does not use)."""
    from django.db import connection

    name = connection.settings_dict["TEST"]["NAME"]
    with connection._nodb_cursor() as cursor:
        cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class _Clock:
    """Seconds spent in ``module.name`` while entered (the function is wrapped)."""

    def __init__(self, module, name: str) -> None:
        self.module, self.name = module, name
        self.function = getattr(module, name)
        self.seconds = 0.0

    def __enter__(self) -> _Clock:
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return self.function(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        setattr(self.module, self.name, timed)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.module, self.name, self.function)


_WAL_STATS = (
    "SELECT w.wal_bytes, w.wal_fpi, c.num_timed + c.num_requested "
    "FROM pg_stat_wal w, pg_stat_checkpointer c"
)


def _wal_stats() -> tuple[int, int, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(_WAL_STATS)
        bytes_, fpi, checkpoints = cursor.fetchone()
    return int(bytes_), int(fpi), int(checkpoints)


def _run_job(workspace, docs: list[str], label: str):
    """Create a job over ``docs`` and run its seven stages in order, in this process.
    Returns (job, seconds per stage, seconds end to end)."""
    from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
    from verifier.services.ingest_create import SourceUpload, ingest_job_create

    started = time.perf_counter()
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref=f"source:{label}_{i}", text=d) for i, d in enumerate(docs)],
        label=label,
        start=False,
    )
    stage_seconds = {"create": round(time.perf_counter() - started, 3)}
    for stage in STAGE_ORDER:
        t0 = time.perf_counter()
        ingest_stage_run(job_id=job.pk, stage=stage)
        stage_seconds[stage] = round(time.perf_counter() - t0, 3)
    elapsed = time.perf_counter() - started
    job.refresh_from_db()
    return job, stage_seconds, elapsed


def _timed_embedding(texts: list[str]) -> float:
    from verifier.embeddings import embed_texts

    t0 = time.perf_counter()
    embed_texts(texts)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--doc-bytes", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--resident-docs",
        type=int,
        default=RESIDENT_DOCS,
        help="documents of another workspace ingested, untimed, before the timed job",
    )
    parser.add_argument(
        "--reuse-db", action="store_true", help="keep the rows of earlier runs (default: fresh)"
    )
    parser.add_argument(
        "--workspace-claims",
        type=int,
        default=0,
        help="published claims (synthetic vectors) already in the timed job's workspace",
    )
    args = parser.parse_args()

    django_setup()
    from django.db import connection
    from django.test.utils import setup_databases

    from config.database_roles import as_owner

    # Creating, migrating and vacuuming the database take the owner role; the pipeline
    # runs as the runtime role, as in production.
    with as_owner():
        if not args.reuse_db:
            _drop_bench_database()
        setup_databases(verbosity=0, interactive=False, keepdb=True)
    from verifier.embeddings import embed_texts
    from verifier.models import Claim, Workspace

    embed_texts(["warm up the model"])  # load once, outside every timing
    stamp = int(time.time())
    if args.resident_docs:
        resident_rng = random.Random(args.seed + 1)
        resident = [make_document(resident_rng, args.doc_bytes) for _ in range(args.resident_docs)]
        workspace = Workspace.objects.create(slug=f"bench-resident-{stamp}", name="Resident")
        _run_job(workspace, resident, "resident")
        with as_owner(), connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")

    rng = random.Random(args.seed)
    docs = [make_document(rng, args.doc_bytes) for _ in range(args.docs)]
    workspace = Workspace.objects.create(slug=f"bench-ingest-{stamp}", name="Ingest benchmark")
    fill = None
    if args.workspace_claims:
        from bench.workspace_fill import fill_workspace

        fill = fill_workspace(workspace, args.workspace_claims)
    # Embed-only throughput before and after the pipeline (the claim texts, nothing else
    # running), averaged: this machine's speed drifts over minutes.
    from verifier.engine import get_extractor

    extracted = [item.text for d in docs for item in get_extractor().extract(d)]
    before = len(extracted) / _timed_embedding(extracted)
    load_before = os.getloadavg()[0]
    from verifier.services import ingest_group, ingest_store

    wal_before = _wal_stats()
    with (
        _Clock(ingest_group, "claims_nearest_earlier") as search_clock,
        _Clock(ingest_store, "_publish") as publish_clock,
    ):
        job, stage_seconds, elapsed = _run_job(workspace, docs, "bench")
    wal = [after - before for before, after in zip(wal_before, _wal_stats(), strict=True)]
    load_after = os.getloadavg()[0]
    texts = list(Claim.objects.filter(ingest_job=job).values_list("text", flat=True))
    after = len(texts) / _timed_embedding(texts)
    embed_rate = (before + after) / 2

    claims = len(texts)
    end_to_end_rate = claims / elapsed
    report = job.quality_report or {}
    from verifier.engine import get_judge
    from verifier.selectors.relation_verification import relation_stats_get

    relation_verification = {
        "judge": get_judge().model_id,
        **relation_stats_get(workspace=workspace),
    }
    print_json(
        {
            "docs": args.docs,
            "fresh_database": not args.reuse_db,
            "doc_bytes": args.doc_bytes,
            "claims": claims,
            "job_status": job.status,
            "failed_items": len(job.errors),
            "seconds_end_to_end": round(elapsed, 2),
            "claims_per_s_end_to_end": round(end_to_end_rate, 1),
            "claims_per_s_embed_only": round(embed_rate, 1),
            "claims_per_s_embed_only_before_after": [round(before, 1), round(after, 1)],
            "resident_docs": args.resident_docs,
            "workspace_claims_before": args.workspace_claims,
            "workspace_fill": fill,
            "load_average_1m_before_after": [round(load_before, 2), round(load_after, 2)],
            "ratio_to_embed_only": round(end_to_end_rate / embed_rate, 3),
            "target_ratio": 0.3,
            "stage_seconds": stage_seconds,
            "group_search_seconds": round(search_clock.seconds, 2),
            "store_publish_seconds": round(publish_clock.seconds, 2),
            "wal_mb_fpi_checkpoints": [round(wal[0] / 2**20), wal[1], wal[2]],
            "trust_score": (report.get("trust") or {}).get("score"),
            "g2_passed": ((report.get("quality") or {}).get("g2") or {}).get("passed"),
            "workspace": workspace.slug,
            # seed 004: the store stage verifies the job's relations (SR-MKG, VoG)
            "relation_verification": relation_verification,
        }
    )


if __name__ == "__main__":
    main()
