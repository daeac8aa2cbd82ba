"""The learning-from-reviewers bench reports, per k, how well the calibrator's reading
separates the reviewers' answers out of fold (``calibrator_cv_roc_auc``): what bounds
what it can decide at the floor."""

from __future__ import annotations

import numpy as np

from bench.learn_from_reviewers import simulate
from verifier.judges import JudgeItem
from verifier.judges.nli.devdata import EvalRow
from verifier.judges.reading import ANSWER_FEATURES


def rows_with_signal(n: int, separation: float) -> tuple[list[EvalRow], np.ndarray]:
    rng = np.random.default_rng(7)
    supported = rng.random(n) < 0.4
    rows = [
        EvalRow(JudgeItem(f"k{i}", "c", ("s",)), "SUPPORT" if s else "NOINFO", "d", "fit")
        for i, s in enumerate(supported)
    ]
    answers = np.tile([0.0, 0.0, 1.0, 0.5, 0.5], (n, 1))  # the judge abstained throughout
    signal = rng.normal(0, 1, n) + separation * supported
    return rows, np.column_stack([answers, signal])


def auc_at(separation: float) -> dict[str, dict]:
    rows, features = rows_with_signal(240, separation)
    return simulate(
        rows,
        features,
        (*ANSWER_FEATURES, "signal"),
        ["abstained"] * len(rows),
        [0.5] * len(rows),
        [0, 100],
        2,
        1.645,
    )


def test_it_reports_the_calibrators_out_of_fold_auc_per_k() -> None:
    separated, noise = auc_at(3.0), auc_at(0.0)
    assert separated["0"]["calibrator_cv_roc_auc"]["mean"] is None  # no calibrator at k = 0
    assert separated["100"]["calibrator_cv_roc_auc"]["min"] > 0.9
    assert 0.3 < noise["100"]["calibrator_cv_roc_auc"]["mean"] < 0.7
