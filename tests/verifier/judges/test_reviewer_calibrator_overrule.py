"""A calibrator overrules a judge that decided only where its out-of-fold figures show the
reviewers siding with it there: a calibrator fitted on a narrow set of decisions (the
reviewers decided claims the judge left open) decides those and leaves the judge's own
decisions alone, whatever its thresholds' precision reads; a stored calibrator without
the overrule figures never overrules."""

from __future__ import annotations

import numpy as np

from verifier.judges import JudgeResult
from verifier.judges.reading import ANSWER_FEATURES
from verifier.judges.reviewer_calibrator import (
    MIN_OVERRULES,
    Calibrator,
    calibrated_answers,
    fit_calibrator,
)

NAMES = (*ANSWER_FEATURES, "signal")
FLOOR = 0.88


def _row(label: str, confidence: float, signal: float) -> list[float]:
    p_entailed = {"entailed": confidence, "contradicted": 0.0}.get(label, 1 - confidence)
    return [
        float(label == "entailed"),
        float(label == "contradicted"),
        float(label == "abstained"),
        confidence,
        p_entailed,
        signal,
    ]


def _narrow(seed: int = 0) -> tuple[np.ndarray, list[bool]]:
    """The reviewers decided mostly claims the judge abstained on: 40 contradicted (a
    weak signal), 12 supported (a strong one); and only 3 the judge decided entailed
    (weak signal, contradicted: every overrule out of fold is right, on 3 cases)."""
    rng = np.random.default_rng(seed)
    rows, supported = [], []
    for _ in range(40):
        rows.append(_row("abstained", 0.6, float(rng.normal(0, 0.5))))
        supported.append(False)
    for _ in range(12):
        rows.append(_row("abstained", 0.6, float(rng.normal(4, 0.5))))
        supported.append(True)
    for _ in range(3):
        rows.append(_row("entailed", 0.95, float(rng.normal(0, 0.5))))
        supported.append(False)
    return np.asarray(rows), supported


def test_a_calibrator_fitted_on_a_narrow_set_never_overrules_a_decided_judge() -> None:
    rows, supported = _narrow()
    calibrator = fit_calibrator(rows, supported, NAMES, floor=FLOOR, seed=0)
    # Its thresholds read well on what it learned from ...
    assert calibrator.contradicted_threshold is not None
    assert calibrator.figures["cv_contradicted"]["precision"] >= FLOOR
    # ... but it barely ever met a decided judge: nothing earns an overrule.
    entailed = calibrator.figures["cv_overrule"]["entailed"]
    assert entailed["judge_decided"] == 3 and 0 < entailed["disagreed"] < MIN_OVERRULES
    assert not calibrator.may_overrule("entailed")
    assert not calibrator.may_overrule("contradicted")

    # Claims the judge decided entailed, which it would call contradicted: the judge's
    # answer stands (before: each one went to "the judge and the reviewers disagree").
    new = np.asarray([_row("entailed", 0.95, 0.0)] * 3 + [_row("abstained", 0.6, 0.0)])
    assert calibrator.decisions(new) == ["contradicted"] * 4
    results = [JudgeResult(str(i), "entailed", 0.95, "") for i in range(3)]
    results.append(JudgeResult("3", "abstained", 0.6, "low_coverage: 0.40"))
    answers = calibrated_answers(calibrator, new, results, version=1)
    assert answers[:3] == [None, None, None]
    # where the judge abstained it still decides
    assert answers[3] is not None and answers[3].label == "contradicted"
    # and its out-of-fold curve counts no overrule either
    assert calibrator.figures["cv_calibrated"]["entailed_calls"] == 3


def _earned(seed: int = 0) -> tuple[np.ndarray, list[bool]]:
    """The judge says entailed on both kinds; the reviewers say contradicted where the
    signal is low (30 of them) and supported where it is high (30)."""
    rng = np.random.default_rng(seed)
    rows, supported = [], []
    for _ in range(30):
        rows.append(_row("entailed", 0.95, float(rng.normal(0, 0.5))))
        supported.append(False)
    for _ in range(30):
        rows.append(_row("entailed", 0.95, float(rng.normal(4, 0.5))))
        supported.append(True)
    return np.asarray(rows), supported


def test_an_overrule_the_reviewers_sided_with_out_of_fold_is_kept() -> None:
    rows, supported = _earned()
    calibrator = fit_calibrator(rows, supported, NAMES, floor=FLOOR, seed=0)
    entailed = calibrator.figures["cv_overrule"]["entailed"]
    assert entailed["judge_decided"] == 60
    assert entailed["disagreed"] >= MIN_OVERRULES
    assert entailed["sided_with_calibrator"] / entailed["disagreed"] >= FLOOR
    assert entailed["precision"] >= FLOOR and entailed["may_overrule"] is True
    assert calibrator.may_overrule("entailed")
    # the judge never decided contradicted here: no evidence, no overrule
    assert calibrator.figures["cv_overrule"]["contradicted"]["judge_decided"] == 0
    assert not calibrator.may_overrule("contradicted")

    new = np.asarray([_row("entailed", 0.95, 0.0)])
    (answer,) = calibrated_answers(
        calibrator, new, [JudgeResult("a", "entailed", 0.95, "")], version=2
    )
    assert answer is not None and answer.label == "abstained"
    assert answer.note.startswith("judge_reviewers_disagree:")

    # A stored calibrator fitted before the overrule figures existed never overrules.
    params = calibrator.as_json()
    params["figures"] = {k: v for k, v in params["figures"].items() if k != "cv_overrule"}
    old = Calibrator.from_json(params)
    assert not old.may_overrule("entailed")
    assert calibrated_answers(old, new, [JudgeResult("a", "entailed", 0.95, "")], version=1) == [
        None
    ]
