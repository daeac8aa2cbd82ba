"""Fit a local NLI model's calibration on development rows and write it beside the model.

    .venv/bin/python -m verifier.judges.cross_encoder.calibrate --model DIR
        [--labels "0=neutral,1=entailed"] [--data ../shared/eval/claims.jsonl]
        [--planted var/planted-v1-items.jsonl] [--out DIR/spanproof-calibration.json]

Reads the ``fit`` part of the development rows (``verifier.judges.nli.devdata``: the
split by claim group; ``heldout`` is never used here) exactly as the judge reads them,
fits the temperature and the two thresholds (``calibration.fit_calibration``), writes
the JSON the cross-encoder backend loads, and prints it with the figures on both parts.
No Django imports.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from verifier.judges.cross_encoder.calibration import (
    CALIBRATION_FILE,
    Calibration,
    fit_calibration,
    save_calibration,
)
from verifier.judges.cross_encoder.factory import cross_encoder_judge
from verifier.judges.metrics import ranking_auc
from verifier.judges.nli.devdata import extra_dev_rows, load_eval_rows

REPO = Path(__file__).resolve().parents[3]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a model folder or cached model id")
    parser.add_argument("--labels", default="", help="as SPANPROOF_JUDGE_LABELS")
    parser.add_argument(
        "--data", type=Path, default=REPO.parent / "shared" / "eval" / "claims.jsonl"
    )
    parser.add_argument("--planted", type=Path, default=REPO / "var" / "planted-v1-items.jsonl")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    judge = cross_encoder_judge(
        {"model": args.model, "labels": args.labels, "calibration": "", "family": "calibrating"}
    )
    judge.calibration = Calibration()  # raw probabilities, whatever file sits beside it
    planted = args.planted if args.planted.is_file() else None
    rows = [r for r in load_eval_rows(args.data) + extra_dev_rows(planted) if r.item.has_evidence]
    scores = judge.score([r.item for r in rows])
    fit = [(s, r) for s, r in zip(scores, rows, strict=True) if s is not None and r.split == "fit"]
    calibration = fit_calibration(
        np.stack([s.lead_logits for s, _ in fit]),
        [r.gold for _, r in fit],
        judge.loaded().labels,
        details={"model": args.model, "labels": judge.loaded().labels.describe()},
    )
    out = args.out or Path(judge.folder) / CALIBRATION_FILE
    save_calibration(out, calibration)
    judge.calibration = calibration
    heldout = [
        (s, r)
        for s, r in zip(judge.score([r.item for r in rows]), rows, strict=True)
        if s is not None and r.split == "heldout"
    ]
    figures = {}
    if heldout:
        p = np.asarray([s.p_entailed for s, _ in heldout])
        positive = np.asarray([r.gold == "SUPPORT" for _, r in heldout])
        figures = {"rows": len(heldout), "roc_auc_entailed": round(ranking_auc(p, positive), 4)}
    print(
        json.dumps(
            {"written": str(out), "calibration": calibration.__dict__, "heldout": figures},
            indent=1,
            default=str,
        )
    )


if __name__ == "__main__":
    main()
