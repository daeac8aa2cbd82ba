"""Near-duplicate grouping: the index path against the exact one.

    .venv/bin/python -m bench.grouping [--quality] [--switch]
                                       [--eval ../shared/eval/claims.jsonl]
                                       [--prose-sentences 10000] [--sizes 2500,5000,...]
                                       [--batches 1024,256,64]

Uses its own ``bench_grouping`` database, created afresh. Prints one JSON object.

``--quality`` (the default when neither is named): one workspace of real sentences, the
claim texts of the eval set (all rows, so a claim that appears in several rows is an
exact repeat) and ``--prose-sentences`` sentences of the training prose (see
``bench/workspace_fill.py``), shuffled with a fixed seed, embedded with all-MiniLM-L6-v2
(cached in ``var/bench/``) and published, so the HNSW index holds all of them. Grouped in
batches of the group stage's size, in id order, twice: exact (today's path for small
workspaces) and through the index (forced, whatever the size: every earlier claim
outside the batch's id range comes from the index). Counts the duplicate pairs
(claim → cluster root) both found, the exact path's pairs the index path missed and the
pairs only the index path made (and how many of the exact pairs are repeats of the same
text, which any search finds); also how many near-duplicates got the same nearest
earlier claim, and the EXPLAIN of the index statement.

``--switch``: where the index path starts to pay. A workspace is filled to each of
``--sizes`` published claims (synthetic vectors, ``bench/workspace_fill.py``); at each
size ``GROUP_BATCH`` new unpublished claims with vectors are added, the last
``--batches`` of them are searched both ways (the selector alone, median of 3), and
they are removed again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages
os.environ.setdefault("SPANPROOF_TEST_DB", "bench_grouping")

from bench._common import ROOT, django_setup, print_json

EVAL = ROOT.parent / "shared" / "eval" / "claims.jsonl"
SEED = 20261125
NEVER = 10**12


def _setup_database() -> None:
    from django.db import connection
    from django.test.utils import setup_databases

    from config.database_roles import as_owner

    with as_owner():
        name = connection.settings_dict["TEST"]["NAME"]
        with connection._nodb_cursor() as cursor:
            cursor.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        setup_databases(verbosity=0, interactive=False, keepdb=True)


def _store_published(workspace, texts: list[str], vectors) -> list[int]:
    """Claims of ``texts`` (one source), published, with ``vectors``; their ids."""
    from bench.workspace_fill import store_vectors
    from verifier.models import Claim, Source

    source = Source.objects.create(workspace=workspace, ref="source:grouping", title="Grouping")
    claims = Claim.objects.bulk_create(
        [
            Claim(
                workspace=workspace,
                source=source,
                text=t,
                original_text=t,
                origin="imported",
                published=True,
            )
            for t in texts
        ],
        batch_size=5_000,
    )
    ids = [c.pk for c in claims]
    for first in range(0, len(ids), 5_000):
        store_vectors(ids[first : first + 5_000], vectors[first : first + 5_000])
    return ids


def _force(path: str) -> None:
    """Make the selector take ``path`` ("exact" or "index") whatever the workspace size."""
    from verifier.selectors import near_duplicates

    index = path == "index"
    near_duplicates.INDEX_MIN_PUBLISHED = 0 if index else NEVER  # type: ignore[misc]
    near_duplicates.INDEX_PUBLISHED_PER_CLAIM = 0 if index else NEVER  # type: ignore[misc]


def _group_all(workspace, path: str) -> tuple[dict[int, int | None], dict, float]:
    """Group every claim of ``workspace`` from scratch in stage-sized batches; returns
    ({claim: root}, {claim: nearest earlier (id, root, cosine)}, seconds)."""
    from verifier.models import Claim
    from verifier.selectors import near_duplicates
    from verifier.services.ingest_group import GROUP_COSINE_THRESHOLD, claims_group
    from verifier.services.ingest_stages import GROUP_BATCH

    Claim.objects.filter(workspace=workspace).update(duplicate_of=None)
    _force(path)
    ids = list(
        Claim.objects.filter(workspace=workspace).order_by("pk").values_list("pk", flat=True)
    )
    nearest: dict = {}
    seconds = 0.0
    for first in range(0, len(ids), GROUP_BATCH):
        batch = list(Claim.objects.filter(pk__in=ids[first : first + GROUP_BATCH]).order_by("pk"))
        # what the stage sees
        nearest.update(
            near_duplicates.claims_nearest_earlier(batch, min_cosine=GROUP_COSINE_THRESHOLD)
        )
        t = time.perf_counter()
        claims_group(claims=batch)
        seconds += time.perf_counter() - t
    roots = dict(Claim.objects.filter(workspace=workspace).values_list("pk", "duplicate_of_id"))
    return roots, nearest, seconds


def quality(eval_path: Path, prose_count: int) -> dict:
    from bench.workspace_fill import cached_embeddings, prose_sentences
    from verifier.models import Workspace
    from verifier.selectors.near_duplicates import index_scan_plan
    from verifier.services.ingest_group import GROUP_COSINE_THRESHOLD

    with eval_path.open(encoding="utf-8") as lines:
        eval_texts = [json.loads(line)["claim"] for line in lines]
    prose = prose_sentences(prose_count)
    import numpy as np

    texts = eval_texts + prose
    vectors = np.concatenate(
        [cached_embeddings(eval_texts, "eval_claims"), cached_embeddings(prose, "prose_sentences")]
    )
    order = list(range(len(texts)))
    random.Random(SEED).shuffle(order)
    workspace = Workspace.objects.create(slug="bench-grouping", name="Grouping")
    ids = _store_published(workspace, [texts[i] for i in order], vectors[order])

    exact_roots, exact_nearest, exact_s = _group_all(workspace, "exact")
    index_roots, index_nearest, index_s = _group_all(workspace, "index")
    exact_pairs = {(c, r) for c, r in exact_roots.items() if r is not None}
    index_pairs = {(c, r) for c, r in index_roots.items() if r is not None}
    exact_dups = {c for c, _ in exact_pairs}
    index_dups = {c for c, _ in index_pairs}
    # The same nearest earlier claim above the threshold (a repeated text has several).
    same_nearest = sum(
        1 for c, found in exact_nearest.items() if index_nearest.get(c, (None,))[0] == found[0]
    )
    text_of = dict(zip(ids, [texts[i] for i in order], strict=True))
    repeats = {(c, r) for c, r in exact_pairs if text_of[c] == text_of[r]}
    return {
        "claims": len(ids),
        "eval_claim_rows": len(eval_texts),
        "eval_distinct_claims": len(set(eval_texts)),
        "prose_sentences": len(prose),
        "threshold": GROUP_COSINE_THRESHOLD,
        "pairs_exact": len(exact_pairs),
        "pairs_exact_same_text": len(repeats),
        "pairs_exact_other_text": len(exact_pairs - repeats),
        "pairs_found": len(exact_pairs & index_pairs),
        "pairs_found_other_text": len((exact_pairs - repeats) & index_pairs),
        "pairs_missed": len(exact_pairs - index_pairs),
        "pairs_extra": len(index_pairs - exact_pairs),
        "duplicates_exact": len(exact_dups),
        "duplicates_index": len(index_dups),
        "duplicates_missed": len(exact_dups - index_dups),
        "duplicates_extra": len(index_dups - exact_dups),
        "same_nearest_earlier_claim": f"{same_nearest}/{len(exact_nearest)}",
        "group_seconds_exact": round(exact_s, 2),
        "group_seconds_index": round(index_s, 2),
        "index_plan": index_scan_plan(
            workspace_id=workspace.pk, claim_pks=ids[-3:], min_cosine=GROUP_COSINE_THRESHOLD
        ).split("\n"),
    }


def _median_seconds(fn, runs: int = 3) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def switch(sizes: list[int], batch_sizes: list[int]) -> dict:
    from bench.workspace_fill import (
        cached_embeddings,
        fill_workspace,
        noisy_copies,
        prose_sentences,
        store_vectors,
    )
    from verifier.models import Claim, Source, Workspace
    from verifier.selectors import near_duplicates
    from verifier.services.ingest_group import GROUP_COSINE_THRESHOLD
    from verifier.services.ingest_stages import GROUP_BATCH

    workspace = Workspace.objects.create(slug="bench-grouping-switch", name="Switch")
    source = Source.objects.create(workspace=workspace, ref="source:probe", title="Probe")
    texts = prose_sentences(10_000)
    probe_vectors = noisy_copies(cached_embeddings(texts, "prose_sentences"), GROUP_BATCH, SEED)
    rows, held = [], 0
    for size in sizes:
        fill_workspace(workspace, size - held, seed=size)
        held = size
        probe = Claim.objects.bulk_create(
            [
                Claim(
                    workspace=workspace, source=source, text=t, original_text=t, origin="imported"
                )
                for t in texts[:GROUP_BATCH]
            ]
        )
        store_vectors([c.pk for c in probe], probe_vectors)
        loaded = list(Claim.objects.filter(pk__in=[c.pk for c in probe]).order_by("pk"))
        for batch_size in batch_sizes:
            batch = loaded[-batch_size:]

            def run(path: str, batch=batch) -> None:
                _force(path)
                near_duplicates.claims_nearest_earlier(batch, min_cosine=GROUP_COSINE_THRESHOLD)

            rows.append(
                {
                    "published_claims": size,
                    "batch": len(batch),
                    "exact_s": round(_median_seconds(lambda: run("exact")), 4),
                    "index_s": round(_median_seconds(lambda: run("index")), 4),
                }
            )
        Claim.objects.filter(pk__in=[c.pk for c in probe]).delete()
    return {"batches": rows, "load_average_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quality", action="store_true")
    parser.add_argument("--switch", action="store_true")
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--prose-sentences", type=int, default=10_000)
    parser.add_argument("--sizes", default="2500,5000,10000,20000,40000,80000,160000")
    parser.add_argument("--batches", default="1024,256,64", help="batch sizes searched")
    args = parser.parse_args()
    if not args.quality and not args.switch:
        args.quality = True

    django_setup()
    _setup_database()
    from verifier.embeddings import embed_texts
    from verifier.selectors import near_duplicates

    embed_texts(["warm up the model"])
    report: dict = {
        "index_min_published": near_duplicates.INDEX_MIN_PUBLISHED,
        "index_published_per_claim": near_duplicates.INDEX_PUBLISHED_PER_CLAIM,
        "index_ef_search": near_duplicates.INDEX_EF_SEARCH,
        "load_average_1m_start": round(os.getloadavg()[0], 2),
    }
    if args.quality:
        report["quality"] = quality(args.eval, args.prose_sentences)
    if args.switch:
        report["switch"] = switch(
            [int(s) for s in args.sizes.split(",")], [int(b) for b in args.batches.split(",")]
        )
    print_json(report)


if __name__ == "__main__":
    main()
