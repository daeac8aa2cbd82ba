"""Learning from reviewers, simulated on externally labelled claims.

    .venv/bin/python bench/learn_from_reviewers.py [--data ../shared/eval/claims.jsonl]
        [--judges heuristic+nli-v2 heuristic nli] [--ks 0 25 50 100 200] [--draws 5]

Per dataset of the file and per judge: each draw splits the dataset's rows in two halves
at random (fixed seed per draw); k rows of the first half play the reviewers' decisions
(gold SUPPORT → "supported", anything else → "contradicted"), a calibrator
(``verifier.judges.reviewer_calibrator``) is fitted on the judge's reading of them, and
the judge + calibrator is measured on the second half, each claim's answer combined as
the judging service does (``combine``: the calibrator decides where the judge did not,
and never overrules a judge that decided — a disagreement is an abstention, and only
where the calibrator's out-of-fold figures earned it, ``Calibrator.may_overrule``): balanced
accuracy of entailed-vs-rest, precision of ``entailed``, abstention (the share neither
entailed nor contradicted at the state policy's confidence floor). k = 0 is the plain
judge. A k larger than the half is capped (the k used is printed). Mean and spread
(min, max) over the draws; the judge reads every row once.

Prints one JSON object. The calibrator's floor is the judges' own precision floor
(``verifier.judges.metrics.ENTAIL_PRECISION_FLOOR``); the precision of the calibrator's
own decisions (its "supported" calls and its "contradicted" calls, each against gold) is
reported per k on the out-of-sample half, with the number of draws where a side fell
below the floor. ``entailed_precision`` is the combined judge + calibrator figure.
``overrules``: the out-of-sample claims the judge decided that the calibrator sends back
to the queue (share of the half), with ``overrule_precision`` (gold sides with the
calibrator); ``ungated_overrules`` and ``ungated_overrule_precision`` are the same for
every disagreement (what a calibrator did before overruling had to be earned).
``calibrator_cv_roc_auc``: the ROC AUC of the calibrator's out-of-fold predictions on the
k decisions it learned from — how well the reading separates the reviewers' answers at
all, which bounds what it can decide at the floor.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, print_json
from verifier.judges import build_judge
from verifier.judges.metrics import ENTAIL_PRECISION_FLOOR
from verifier.judges.nli.devdata import EvalRow, load_eval_rows
from verifier.judges.reading import judge_reading
from verifier.judges.reviewer_calibrator import (
    CONFIDENCE_Z,
    DECIDING_LABELS,
    DECISION_LABEL,
    NotEnoughDecisions,
    combine,
    fit_calibrator,
)

DEFAULT_DATA = ROOT.parent / "shared" / "eval" / "claims.jsonl"


def measure(labels: list[str], gold: list[str]) -> dict[str, float | None]:
    positive = np.asarray([g == "SUPPORT" for g in gold])
    entailed = np.asarray([lab == "entailed" for lab in labels])
    decided = np.asarray([lab in {"entailed", "contradicted"} for lab in labels])
    tpr = (entailed & positive).sum() / max(positive.sum(), 1)
    tnr = (~entailed & ~positive).sum() / max((~positive).sum(), 1)
    return {
        "balanced_accuracy": float((tpr + tnr) / 2),
        "entailed_precision": float(positive[entailed].mean()) if entailed.any() else None,
        "abstention": float(1 - decided.mean()),
        "entailed_calls": int(entailed.sum()),
    }


def summarize(values: list[float | None]) -> dict[str, float | None]:
    present = [v for v in values if v is not None]
    if not present:
        return {"mean": None, "min": None, "max": None}
    return {
        "mean": round(float(np.mean(present)), 4),
        "min": round(float(np.min(present)), 4),
        "max": round(float(np.max(present)), 4),
    }


def simulate(
    rows: list[EvalRow],
    features: np.ndarray,
    names: tuple[str, ...],
    labels: list[str],
    confidences: list[float],
    ks: list[int],
    draws: int,
    z: float,
) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for k in ks:
        figures: dict[str, list] = {
            "balanced_accuracy": [],
            "entailed_precision": [],
            "abstention": [],
            "decided_by_calibrator": [],
            "calibrator_supported_precision": [],
            "calibrator_contradicted_precision": [],
            "overrules": [],
            "overrule_precision": [],
            "ungated_overrules": [],
            "ungated_overrule_precision": [],
            "calibrator_cv_roc_auc": [],
            "k_used": [],
        }
        below_floor = 0
        calls = {"supported": 0, "contradicted": 0}
        for draw in range(draws):
            order = list(range(len(rows)))
            random.Random(1000 + draw).shuffle(order)
            half = len(order) // 2
            learn, test = order[:half], order[half:]
            taken = learn[: min(k, len(learn))]
            # The plain judge: its answer decides where it is confident enough.
            final = [combine(labels[i], None, judge_confidence=confidences[i]) for i in test]
            decided = 0
            sup_precision: float | None = None
            con_precision: float | None = None
            cv_auc: float | None = None
            gated: list[bool] = []  # per overrule: gold sides with the calibrator
            ungated: list[bool] = []
            if taken:
                gold_taken = [rows[i].gold == "SUPPORT" for i in taken]
                try:
                    calibrator = fit_calibrator(features[taken], gold_taken, names, seed=draw, z=z)
                    cv_auc = calibrator.figures.get("cv_roc_auc")
                    decisions = calibrator.decisions(features[test])
                    decided = sum(d is not None for d in decisions)
                    gold_test = [rows[i].gold == "SUPPORT" for i in test]
                    said = [
                        g for g, d in zip(gold_test, decisions, strict=True) if d == "supported"
                    ]
                    denied = [
                        g for g, d in zip(gold_test, decisions, strict=True) if d == "contradicted"
                    ]
                    calls["supported"] += len(said)
                    calls["contradicted"] += len(denied)
                    sup_precision = float(np.mean(said)) if said else None
                    con_precision = float(1 - np.mean(denied)) if denied else None
                    below_floor += any(
                        p is not None and p < ENTAIL_PRECISION_FLOOR
                        for p in (sup_precision, con_precision)
                    )
                    final = [
                        combine(
                            labels[i],
                            d,
                            judge_confidence=confidences[i],
                            overrule=calibrator.may_overrule(labels[i]),
                        )
                        for i, d in zip(test, decisions, strict=True)
                    ]
                    for i, d in zip(test, decisions, strict=True):
                        judged = combine(labels[i], None, judge_confidence=confidences[i])
                        if d is None or judged not in DECIDING_LABELS:
                            continue  # no decision, or the judge did not decide
                        if DECISION_LABEL[d] == judged:
                            continue  # it agrees with the judge
                        right = (rows[i].gold == "SUPPORT") == (d == "supported")
                        ungated.append(right)
                        if calibrator.may_overrule(labels[i]):
                            gated.append(right)
                except NotEnoughDecisions:
                    pass
            result = measure(final, [rows[i].gold for i in test])
            figures["calibrator_supported_precision"].append(sup_precision)
            figures["calibrator_contradicted_precision"].append(con_precision)
            for key in ("balanced_accuracy", "entailed_precision", "abstention"):
                figures[key].append(result[key])
            figures["decided_by_calibrator"].append(decided / max(len(test), 1))
            figures["overrules"].append(len(gated) / max(len(test), 1))
            figures["overrule_precision"].append(float(np.mean(gated)) if gated else None)
            figures["ungated_overrules"].append(len(ungated) / max(len(test), 1))
            figures["ungated_overrule_precision"].append(
                float(np.mean(ungated)) if ungated else None
            )
            figures["calibrator_cv_roc_auc"].append(cv_auc)
            figures["k_used"].append(len(taken))
        out[str(k)] = {key: summarize(vals) for key, vals in figures.items()} | {
            "calibrator_calls": calls,
            "draws_where_a_calibrator_side_fell_below_the_floor": below_floor,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--judges", nargs="+", default=["heuristic+nli-v2", "heuristic", "nli"])
    parser.add_argument("--ks", type=int, nargs="+", default=[0, 25, 50, 100, 200])
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument(
        "--z",
        type=float,
        default=CONFIDENCE_Z,
        help="thresholds need the precision's lower bound at this z to reach the floor "
        "(0: the point estimate)",
    )
    args = parser.parse_args()

    rows = [r for r in load_eval_rows(args.data) if r.item.has_evidence]
    datasets = sorted({r.dataset for r in rows})
    report: dict = {
        "data": str(args.data),
        "floor": ENTAIL_PRECISION_FLOOR,
        "draws": args.draws,
        "z": args.z,
        "judges": {},
    }
    for backend in args.judges:
        started = time.perf_counter()
        judge = build_judge({"backend": backend})
        reading = judge_reading(judge, [r.item for r in rows])
        labels = [r.label for r in reading.results]
        confidences = [r.confidence for r in reading.results]
        per_dataset = {}
        for dataset in datasets:
            index = [i for i, r in enumerate(rows) if r.dataset == dataset]
            per_dataset[dataset] = {
                "rows": len(index),
                "by_k": simulate(
                    [rows[i] for i in index],
                    reading.rows[index],
                    reading.names,
                    [labels[i] for i in index],
                    [confidences[i] for i in index],
                    args.ks,
                    args.draws,
                    args.z,
                ),
            }
        report["judges"][judge.model_id] = {
            "features": len(reading.names),
            "datasets": per_dataset,
            "seconds": round(time.perf_counter() - started, 1),
        }
    print_json(report, indent=1)


if __name__ == "__main__":
    main()
