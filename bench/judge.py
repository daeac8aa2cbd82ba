"""Heuristic judge benchmark: throughput and quality on the development eval data.

    .venv/bin/python bench/judge.py                       # ../shared/eval/claims.jsonl
    .venv/bin/python bench/judge.py --data PATH [--split heldout|train|all]

Prints one JSON object: claim–span pairs judged per second (batched, embedding model
already loaded), precision of ``entailed`` (gold SUPPORT vs NOINFO/CONTRADICT, i.e.
supported vs partially/un-supported), its recall, the abstention rate and the label mix.

Evidence per row is the gold rationale spans (grouped into at most three spans). Rows
without rationale (NOINFO) get the three source sentences with the highest word
coverage of the claim, which is what an evidence search inside the cited source would
bind. The split is deterministic: SHA-256 of the claim group id, so a claim's variants
never straddle train and held-out (``bench/fit_heuristic_judge.py`` fits on train).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from verifier.judges import MAX_SPANS_PER_ITEM, JudgeItem, judge_items  # noqa: E402
from verifier.judges.heuristic import HeuristicJudge  # noqa: E402
from verifier.judges.signals import compare  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "eval" / "claims.jsonl"
HELDOUT_SHARE_PERCENT = 30
THROUGHPUT_TARGET_PAIRS_PER_S = 200
THROUGHPUT_REPEATS = 3


@dataclass(frozen=True)
class EvalRow:
    item: JudgeItem
    gold: str  # SUPPORT | NOINFO | CONTRADICT
    dataset: str
    split: str  # train | heldout


def split_of(group: str) -> str:
    bucket = int(hashlib.sha256(group.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "heldout" if bucket < HELDOUT_SHARE_PERCENT else "train"


def _group_spans(texts: list[str]) -> tuple[str, ...]:
    if len(texts) <= MAX_SPANS_PER_ITEM:
        return tuple(texts)
    size = -(-len(texts) // MAX_SPANS_PER_ITEM)
    return tuple(" ".join(texts[i : i + size]) for i in range(0, len(texts), size))


def _evidence(row: dict) -> tuple[str, ...]:
    text = row["source_text"]
    if row["rationale_spans"]:
        return _group_spans([text[s:e] for s, e in row["rationale_spans"]])
    sentences = [text[s:e] for s, e in row["source_sentence_offsets"] if text[s:e].strip()]
    ranked = sorted(
        range(len(sentences)), key=lambda i: (-compare(row["claim"], sentences[i]).coverage, i)
    )
    return tuple(sentences[i] for i in sorted(ranked[:MAX_SPANS_PER_ITEM]))


def load_eval_rows(path: Path) -> list[EvalRow]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            item = JudgeItem(key=row["id"], claim=row["claim"], spans=_evidence(row))
            rows.append(EvalRow(item, row["label"], row["dataset"], split_of(row["group"])))
    return rows


def quality(rows: list[EvalRow], labels: list[str]) -> dict:
    entailed = [r for r, lab in zip(rows, labels, strict=True) if lab == "entailed"]
    true_pos = sum(r.gold == "SUPPORT" for r in entailed)
    support = sum(r.gold == "SUPPORT" for r in rows)
    contradicted = [r for r, lab in zip(rows, labels, strict=True) if lab == "contradicted"]
    return {
        "rows": len(rows),
        "entailed": len(entailed),
        "entailed_precision": round(true_pos / len(entailed), 4) if entailed else None,
        "entailed_recall": round(true_pos / support, 4) if support else None,
        "abstention_rate": round(sum(lab == "abstained" for lab in labels) / len(rows), 4),
        "contradicted": len(contradicted),
        "contradicted_not_support_rate": (
            round(sum(r.gold != "SUPPORT" for r in contradicted) / len(contradicted), 4)
            if contradicted
            else None
        ),
        "labels": dict(Counter(labels)),
        "false_entailed_by_gold": dict(Counter(r.gold for r in entailed if r.gold != "SUPPORT")),
    }


def throughput(judge: HeuristicJudge, rows: list[EvalRow]) -> dict:
    items = [r.item for r in rows]
    judge_items(judge, items[:8])  # load the embedding model outside the timing
    pairs = sum(len(item.spans) for item in items)
    best = float("inf")
    for _ in range(THROUGHPUT_REPEATS):
        from verifier.judges import signals

        signals.profile.cache_clear()  # measure cold tokenization too
        start = time.perf_counter()
        judge_items(judge, items)
        best = min(best, time.perf_counter() - start)
    rate = pairs / best
    return {
        "pairs": pairs,
        "items": len(items),
        "seconds": round(best, 3),
        "pairs_per_s": round(rate, 1),
        "items_per_s": round(len(items) / best, 1),
        "target_pairs_per_s": THROUGHPUT_TARGET_PAIRS_PER_S,
        "meets_target": rate >= THROUGHPUT_TARGET_PAIRS_PER_S,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=["heldout", "train", "all"], default="heldout")
    args = parser.parse_args()

    rows = load_eval_rows(args.data)
    judge = HeuristicJudge()
    chosen = rows if args.split == "all" else [r for r in rows if r.split == args.split]
    results = judge_items(judge, [r.item for r in chosen])
    report = {
        "judge": {"model_id": judge.model_id, "family": judge.family},
        "data": str(args.data),
        "split": args.split,
        "quality": quality(chosen, [r.label for r in results]),
        "quality_by_dataset": {
            ds: quality(
                [r for r in chosen if r.dataset == ds],
                [res.label for r, res in zip(chosen, results, strict=True) if r.dataset == ds],
            )
            for ds in sorted({r.dataset for r in chosen})
        },
        "throughput_all_rows": throughput(judge, rows),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
