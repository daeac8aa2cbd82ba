"""Evidence-search benchmark: does the top window inside the cited source hit the gold span?

    .venv/bin/python bench/evidence_search.py [--data PATH] [--share PERCENT] [--fit]

Each row of ``../shared/eval/claims.jsonl`` is a claim and one source text. Gold rows
(SUPPORT / CONTRADICT) carry ``rationale_spans``; a candidate window is a hit when it
overlaps one of them. Prints one JSON object: recall@1 / recall@3 over all gold rows and
over rows whose source has more than one sentence, the share of gold rows dropped by the
floor, the no-evidence rate on NOINFO rows, and timing. ``--fit`` also runs the grid
search documented in ``verifier/services/evidence_search.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, print_json
from verifier.services import evidence_search as es

DEFAULT_DATA = ROOT.parent / "shared" / "eval" / "claims.jsonl"


def _overlaps(span: tuple[int, int], gold: list[list[int]]) -> bool:
    return any(span[0] < g[1] and g[0] < span[1] for g in gold)


def evaluate(rows: list[dict], *, floor: float | None = None, **params: float) -> dict:
    """Rank every row once (no floor), then apply ``floor`` to the ranked windows."""
    floor = es.EVIDENCE_FLOOR if floor is None else floor
    ranked: dict[str, list] = {}
    for r in rows:
        sha = hashlib.sha256(r["source_text"].encode("utf-8")).hexdigest()
        found = es.rank_windows(
            text=r["source_text"], sha256=sha, claim_text=r["claim"], limit=3, floor=-1.0, **params
        )
        ranked[r["id"]] = [c for c in found if c.score >= floor]
    gold_rows = [r for r in rows if r["label"] != "NOINFO" and r["rationale_spans"]]
    multi = [r for r in gold_rows if len(r["source_sentence_offsets"]) > 1]
    noinfo = [r for r in rows if r["label"] == "NOINFO"]

    def recall(subset: list[dict], k: int) -> float:
        hits = sum(
            any(_overlaps((c.start, c.end), r["rationale_spans"]) for c in ranked[r["id"]][:k])
            for r in subset
        )
        return round(hits / len(subset), 4) if subset else 0.0

    def empty_rate(subset: list[dict]) -> float:
        return round(sum(not ranked[r["id"]] for r in subset) / len(subset), 4) if subset else 0.0

    return {
        "gold_rows": len(gold_rows),
        "multi_sentence_gold_rows": len(multi),
        "noinfo_rows": len(noinfo),
        "recall_at_1": recall(gold_rows, 1),
        "recall_at_3": recall(gold_rows, 3),
        "multi_recall_at_1": recall(multi, 1),
        "multi_recall_at_3": recall(multi, 3),
        "gold_dropped_by_floor": empty_rate(gold_rows),
        "noinfo_no_evidence_rate": empty_rate(noinfo),
    }


def _memoize_embeddings() -> None:
    """Claims are re-embedded for every grid point otherwise; memoize in this process."""
    real = es._embed
    memo: dict[tuple[str, ...], object] = {}

    def embed(texts: list[str]):
        key = tuple(texts)
        if key not in memo:
            memo[key] = real(texts)
        return memo[key]

    es._embed = embed


def fit(rows: list[dict]) -> dict:
    best = None
    for weight, penalty in itertools.product(
        [round(0.1 * i, 1) for i in range(2, 8)], [0.02, 0.05, 0.1]
    ):
        m = evaluate(rows, lexical_weight=weight, extra_sentence_penalty=penalty, floor=0.0)
        key = (m["multi_recall_at_1"], m["multi_recall_at_3"])
        if best is None or key > best[0]:
            best = (key, weight, penalty)
    _, weight, penalty = best
    chosen_floor = 0.0
    for step in range(13):
        floor = round(0.025 * step, 3)
        m = evaluate(rows, lexical_weight=weight, extra_sentence_penalty=penalty, floor=floor)
        if m["gold_dropped_by_floor"] <= 0.01:
            chosen_floor = floor
    return {"lexical_weight": weight, "extra_sentence_penalty": penalty, "floor": chosen_floor}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--fit", action="store_true")
    parser.add_argument(
        "--share",
        type=int,
        default=100,
        help="Percent of rows to use (deterministic by SHA-256 of the row id); the full "
        "file embeds ~75k windows, about 20 CPU-minutes.",
    )
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line]
    rows = [
        r for r in rows if int(hashlib.sha256(r["id"].encode()).hexdigest(), 16) % 100 < args.share
    ]
    out: dict = {}
    es.EMBEDDING_CACHE_SIZE = 100_000  # every eval source stays embedded in this process
    if args.fit:
        _memoize_embeddings()
        out["fitted"] = fit(rows)
    began = time.perf_counter()
    out["constants"] = {
        "lexical_weight": es.LEXICAL_WEIGHT,
        "extra_sentence_penalty": es.EXTRA_SENTENCE_PENALTY,
        "floor": es.EVIDENCE_FLOOR,
    }
    out["share_percent"] = args.share
    out["metrics"] = evaluate(rows)
    out["seconds"] = round(time.perf_counter() - began, 2)
    print_json(out)


if __name__ == "__main__":
    main()
