"""Ingest throughput: N documents of ~5 KB through the whole pipeline, in-process.

    .venv/bin/python -m bench.ingest [--docs 200] [--doc-bytes 5000]

Uses its own ``bench_ingest`` database and a new ``bench-ingest-<time>`` workspace,
ingests synthetic documents (deterministic, varied declarative sentences), runs the
seven stages in order in this process (the same stage services the Celery tasks call),
then embeds the same claim texts once more with nothing else (embed-only throughput).
Prints JSON: claims/s end to end, embed-only claims/s, their ratio (target >= 0.5), and
seconds per stage.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Its own database on the same server (created and migrated on first use, kept after),
# so the benchmark never depends on, or writes into, the development database.
os.environ.setdefault("SPANPROOF_TEST_DB", "bench_ingest")

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--doc-bytes", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    import django

    django.setup()
    from django.test.utils import setup_databases

    setup_databases(verbosity=0, interactive=False, keepdb=True)
    from verifier.embeddings import embed_texts
    from verifier.models import Claim, Workspace
    from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
    from verifier.services.ingest_create import SourceUpload, ingest_job_create

    rng = random.Random(args.seed)
    docs = [make_document(rng, args.doc_bytes) for _ in range(args.docs)]
    embed_texts(["warm up the model"])  # load once, outside every timing
    workspace = Workspace.objects.create(
        slug=f"bench-ingest-{int(time.time())}", name="Ingest benchmark"
    )

    started = time.perf_counter()
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref=f"source:bench_{i}", text=d) for i, d in enumerate(docs)],
        label="bench",
        start=False,
    )
    stage_seconds = {"create": round(time.perf_counter() - started, 3)}
    for stage in STAGE_ORDER:
        t0 = time.perf_counter()
        ingest_stage_run(job_id=job.pk, stage=stage)
        stage_seconds[stage] = round(time.perf_counter() - t0, 3)
    elapsed = time.perf_counter() - started
    job.refresh_from_db()

    texts = list(Claim.objects.filter(ingest_job=job).values_list("text", flat=True))
    t0 = time.perf_counter()
    embed_texts(texts)
    embed_only = time.perf_counter() - t0

    claims = len(texts)
    end_to_end_rate = claims / elapsed
    embed_rate = claims / embed_only
    report = job.quality_report or {}
    print(
        json.dumps(
            {
                "docs": args.docs,
                "doc_bytes": args.doc_bytes,
                "claims": claims,
                "job_status": job.status,
                "failed_items": len(job.errors),
                "seconds_end_to_end": round(elapsed, 2),
                "claims_per_s_end_to_end": round(end_to_end_rate, 1),
                "seconds_embed_only": round(embed_only, 2),
                "claims_per_s_embed_only": round(embed_rate, 1),
                "ratio_to_embed_only": round(end_to_end_rate / embed_rate, 3),
                "target_ratio": 0.5,
                "stage_seconds": stage_seconds,
                "trust_score": (report.get("trust") or {}).get("score"),
                "g2_passed": ((report.get("quality") or {}).get("g2") or {}).get("passed"),
                "workspace": workspace.slug,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
