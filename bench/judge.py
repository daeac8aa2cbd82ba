"""Judge benchmark: held-out quality, throughput, cold load and memory.

    .venv/bin/python bench/judge.py                       # ../shared/eval/claims.jsonl
    .venv/bin/python bench/judge.py --data PATH [--split heldout|fit|all]
                                    [--judges nli heuristic] [--no-speed]

Prints one JSON object with a row per judge: precision of ``entailed`` (gold SUPPORT vs
NOINFO/CONTRADICT, i.e. supported vs partially/un-supported), its recall, balanced
accuracy of entailed-vs-rest, the abstention rate, contradiction precision, the label
mix, per dataset; and for ``spanproof-nli-v1`` the claim–span pairs judged per second
(batched, model loaded), the cold load time (a fresh process: imports, SHA-256 checks,
first batch) and the resident memory of that process, plus the cosine agreement of a
torch dynamic int8 encoder's sentence vectors with the fp32 model's (why the judge runs
fp32).

Rows, evidence and the split come from ``verifier.judges.nli.devdata``: the trainer fits
its thresholds and temperature on the ``fit`` part only; ``heldout`` is never seen there.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[0] = str(REPO)

from verifier.judges import build_judge, judge_items  # noqa: E402
from verifier.judges.base import Judge  # noqa: E402
from verifier.judges.nli.devdata import EvalRow, load_eval_rows  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "eval" / "claims.jsonl"
THROUGHPUT_TARGET_PAIRS_PER_S = 150
COLD_LOAD_TARGET_S = 3.0
RSS_TARGET_MB = 700
THROUGHPUT_REPEATS = 2

_COLD_LOAD = """
import resource, sys, time
t0 = time.perf_counter()
sys.path[0] = {repo!r}
from verifier.judges import JudgeItem, build_judge
judge = build_judge({{"backend": "nli"}})
judge.judge_batch([JudgeItem("k", "Corals grow slowly.", ("Cold-water corals grow slowly.",))])
elapsed = time.perf_counter() - t0
rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(elapsed, rss_mb)
"""


def quality(rows: list[EvalRow], labels: list[str]) -> dict:
    entailed = [r for r, lab in zip(rows, labels, strict=True) if lab == "entailed"]
    true_pos = sum(r.gold == "SUPPORT" for r in entailed)
    support = sum(r.gold == "SUPPORT" for r in rows)
    rest = len(rows) - support
    true_neg = sum(
        r.gold != "SUPPORT" and lab != "entailed" for r, lab in zip(rows, labels, strict=True)
    )
    contradicted = [r for r, lab in zip(rows, labels, strict=True) if lab == "contradicted"]
    tpr = true_pos / support if support else None
    tnr = true_neg / rest if rest else None
    return {
        "rows": len(rows),
        "entailed": len(entailed),
        "entailed_precision": round(true_pos / len(entailed), 4) if entailed else None,
        "entailed_recall": round(tpr, 4) if tpr is not None else None,
        "balanced_accuracy": (
            round((tpr + tnr) / 2, 4) if tpr is not None and tnr is not None else None
        ),
        "abstention_rate": round(sum(lab == "abstained" for lab in labels) / len(rows), 4),
        "contradicted": len(contradicted),
        "contradicted_precision": (
            round(sum(r.gold == "CONTRADICT" for r in contradicted) / len(contradicted), 4)
            if contradicted
            else None
        ),
        "contradicted_not_support_rate": (
            round(sum(r.gold != "SUPPORT" for r in contradicted) / len(contradicted), 4)
            if contradicted
            else None
        ),
        "labels": dict(Counter(labels)),
        "false_entailed_by_gold": dict(Counter(r.gold for r in entailed if r.gold != "SUPPORT")),
    }


def evaluate(judge: Judge, rows: list[EvalRow]) -> dict:
    results = judge_items(judge, [r.item for r in rows], batch_size=64)
    labels = [r.label for r in results]
    return {
        "judge": {"model_id": judge.model_id, "family": judge.family},
        "quality": quality(rows, labels),
        "quality_by_dataset": {
            ds: quality(
                [r for r in rows if r.dataset == ds],
                [lab for r, lab in zip(rows, labels, strict=True) if r.dataset == ds],
            )
            for ds in sorted({r.dataset for r in rows})
        },
    }


def throughput(judge: Judge, rows: list[EvalRow]) -> dict:
    from verifier.judges.nli.judge import candidate_texts

    items = [r.item for r in rows]
    judge.judge_batch(items[:4])  # load outside the timing
    pairs = sum(len(candidate_texts(item)) for item in items)
    best = float("inf")
    for _ in range(THROUGHPUT_REPEATS):
        start = time.perf_counter()
        judge_items(judge, items, batch_size=64)
        best = min(best, time.perf_counter() - start)
    rate = pairs / best
    return {
        "pairs": pairs,
        "items": len(items),
        "seconds": round(best, 3),
        "pairs_per_s": round(rate, 1),
        "target_pairs_per_s": THROUGHPUT_TARGET_PAIRS_PER_S,
        "meets_target": rate >= THROUGHPUT_TARGET_PAIRS_PER_S,
    }


def cold_load() -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _COLD_LOAD.format(repo=str(REPO))],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    seconds, rss = float(out[-2]), float(out[-1])
    return {
        "cold_load_s": round(seconds, 2),
        "cold_load_target_s": COLD_LOAD_TARGET_S,
        "rss_mb_after_first_batch": round(rss, 1),
        "rss_target_mb": RSS_TARGET_MB,
    }


def int8_agreement(rows: list[EvalRow]) -> dict:
    import numpy as np

    from verifier.embeddings import embed_texts
    from verifier.judges.nli.encoder import TokenEncoder

    claims = [r.item.claim for r in rows]
    fp32 = embed_texts(claims)
    int8 = np.stack([e.sentence for e in TokenEncoder(quantize=True).encode(claims)])
    cosines = (fp32 * int8).sum(axis=1)
    return {
        "texts": len(claims),
        "mean_cosine": round(float(cosines.mean()), 4),
        "min_cosine": round(float(cosines.min()), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=["heldout", "fit", "all"], default="heldout")
    parser.add_argument("--judges", nargs="+", default=["nli", "heuristic"])
    parser.add_argument("--no-speed", action="store_true", help="quality only")
    args = parser.parse_args()

    rows = load_eval_rows(args.data)
    chosen = rows if args.split == "all" else [r for r in rows if r.split == args.split]
    report: dict = {"data": str(args.data), "split": args.split, "judges": {}}
    for backend in args.judges:
        judge = build_judge({"backend": backend})
        row = evaluate(judge, chosen)
        if backend == "nli" and not args.no_speed:
            row["throughput_all_rows"] = throughput(judge, rows)
            row["load"] = cold_load()
            row["int8_vs_fp32_sentence_vectors"] = int8_agreement(rows)
        report["judges"][judge.model_id] = row
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
