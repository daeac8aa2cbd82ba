"""The calibrator that learns from reviewers: its floor holds out of sample, it refuses
too few decisions, it round-trips as plain numbers, and every judge gives a reading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verifier.judges import JudgeItem, build_judge, judge_items
from verifier.judges.reading import ANSWER_FEATURES, judge_reading
from verifier.judges.reviewer_calibrator import (
    Calibrator,
    NotEnoughDecisions,
    combine,
    fit_calibrator,
)

NAMES = ("signal", "noise")


def synthetic(n: int, seed: int, separation: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    supported = rng.random(n) < 0.4
    signal = rng.normal(0, 1, n) + separation * supported
    return np.stack([signal, rng.normal(0, 1, n)], axis=1), supported


def test_precision_holds_on_rows_it_never_saw() -> None:
    rows, supported = synthetic(300, 1)
    calibrator = fit_calibrator(rows, supported, NAMES, floor=0.9, seed=0)
    assert calibrator.supported_threshold is not None
    test_rows, test_supported = synthetic(4000, 2)
    decisions = np.asarray(calibrator.decisions(test_rows))
    said_supported = decisions == "supported"
    said_contradicted = decisions == "contradicted"
    assert said_supported.sum() > 100
    assert test_supported[said_supported].mean() >= 0.85  # the floor, with sampling slack
    if calibrator.contradicted_threshold is not None:
        assert (~test_supported[said_contradicted]).mean() >= 0.85
    assert calibrator.figures["cv_supported"]["precision"] >= 0.9


def test_its_two_thresholds_never_overlap() -> None:
    # Decisive, well separated decisions: the folds leave the middle range empty, and the
    # first threshold of each side alone would claim it (supported at P >= 0.14 and
    # contradicted at P <= 0.84): a probability of 0.3 was called supported, by the order
    # of the tests. The overlap is split at its middle.
    rows, supported = synthetic(120, 5, separation=9.0)
    calibrator = fit_calibrator(rows, supported, NAMES, floor=0.88, seed=0)
    sup, con = calibrator.supported_threshold, calibrator.contradicted_threshold
    assert sup is not None and con is not None
    assert con < sup
    grid = np.asarray([[v, 0.0] for v in np.linspace(-3.0, 12.0, 2000)])
    p = calibrator.probabilities(grid)
    decided = dict(zip(np.round(p, 2), calibrator.decisions(grid), strict=False))
    assert decided[0.3] == "contradicted" and decided[0.7] == "supported"


def test_without_signal_it_decides_nothing() -> None:
    rows, supported = synthetic(200, 3, separation=0.0)
    calibrator = fit_calibrator(rows, supported, NAMES, floor=0.9, seed=0)
    assert calibrator.supported_threshold is None
    assert all(d != "supported" for d in calibrator.decisions(rows))


@pytest.mark.parametrize(("n", "positives"), [(10, 5), (60, 2), (60, 58)])
def test_too_few_decisions_or_one_answer_only_are_refused(n: int, positives: int) -> None:
    rows = np.zeros((n, 2))
    supported = [i < positives for i in range(n)]
    with pytest.raises(NotEnoughDecisions):
        fit_calibrator(rows, supported, NAMES)


def test_it_round_trips_as_plain_json() -> None:
    rows, supported = synthetic(200, 4)
    calibrator = fit_calibrator(rows, supported, NAMES, seed=1)
    again = Calibrator.from_json(json.loads(json.dumps(calibrator.as_json())))
    assert again == calibrator
    assert np.allclose(again.probabilities(rows), calibrator.probabilities(rows))


def test_the_calibrator_decides_only_where_it_speaks() -> None:
    assert combine("abstained", "supported") == "entailed"
    assert combine("abstained", "contradicted") == "contradicted"
    assert combine("abstained", None) == "abstained"
    # a lean below the state policy's confidence floor decides nothing by itself ...
    assert combine("entailed", None, judge_confidence=0.3) == "abstained"
    assert combine("entailed", "contradicted", judge_confidence=0.3) == "contradicted"
    # ... a judge that decided is never overruled: a disagreement is for a person, and
    # only where the calibrator has earned overruling that answer
    assert combine("entailed", "contradicted", judge_confidence=0.9, overrule=True) == "abstained"
    assert combine("contradicted", "supported", judge_confidence=0.9, overrule=True) == "abstained"
    assert combine("entailed", "contradicted", judge_confidence=0.9) == "entailed"
    assert combine("entailed", "supported", judge_confidence=0.9) == "entailed"
    # no answer (a coverage gap) is never decided for
    assert combine("coverage_gap", "supported") == "coverage_gap"


def test_calibrated_answers_carry_the_calibrator_and_its_precision() -> None:
    from verifier.judges import JudgeResult
    from verifier.judges.reviewer_calibrator import calibrated_answers

    rows, supported = synthetic(300, 5)
    calibrator = fit_calibrator(rows, supported, NAMES, floor=0.9, seed=0)
    high = rows[int(np.argmax(calibrator.probabilities(rows)))]
    results = [
        JudgeResult("a", "abstained", 1.0, "low_coverage: 0.40"),
        JudgeResult("b", "contradicted", 0.95, "negation: not"),
        JudgeResult("c", "entailed", 0.95, ""),
        JudgeResult("d", "coverage_gap", 0.0, "omitted"),
    ]
    answers = calibrated_answers(calibrator, np.stack([high] * 4), results, version=3)
    decided, overruled, agreed, gap = answers
    assert decided is not None and decided.label == "entailed"
    assert decided.confidence == calibrator.figures["cv_supported"]["precision"] >= 0.9
    assert decided.note.startswith("reviewer_calibrator:") and "calibrator v3" in decided.note
    # synthetic features without the judge's answer columns: no overrule figures, so the
    # judge's decided answer stands (tests/.../test_reviewer_calibrator_overrule.py)
    assert overruled is None
    assert agreed is None and gap is None


def test_the_heuristic_reading_is_its_answers_plus_its_signals() -> None:
    judge = build_judge({"backend": "heuristic"})
    items = [
        JudgeItem(
            "a",
            "Its beam reaches forty nautical miles.",
            ("Its beam reaches forty nautical miles at night.",),
        ),
        JudgeItem(
            "b",
            "Its beam reaches forty nautical miles.",
            ("Its beam reaches fourteen nautical miles.",),
        ),
        JudgeItem("c", "Its beam reaches forty nautical miles.", ("",)),
    ]
    reading = judge_reading(judge, items)
    assert reading.names[: len(ANSWER_FEATURES)] == ANSWER_FEATURES
    assert reading.rows.shape == (3, len(reading.names))
    assert [r.label for r in reading.results] == [r.label for r in judge_items(judge, items)]
    column = reading.names.index("h_number_mismatch")
    assert reading.rows[1, column] == 1.0 and reading.rows[0, column] == 0.0
    assert not reading.rows[2, len(ANSWER_FEATURES) :].any()  # no evidence: zeros


def test_a_judge_without_a_reading_gives_its_answers() -> None:
    class Plain:
        model_id, family, prompt_version = "plain", "plain", 1

        def judge_batch(self, items):
            from verifier.judges import JudgeResult

            return [JudgeResult(i.key, "abstained", 0.7, "") for i in items]

    reading = judge_reading(Plain(), [JudgeItem("k", "c", ("s",))])
    assert reading.names == ANSWER_FEATURES
    assert reading.rows.tolist() == [[0.0, 0.0, 1.0, pytest.approx(0.7), pytest.approx(0.3)]]


def test_a_threshold_needs_its_precision_lower_bound_at_the_floor() -> None:
    from verifier.judges.reviewer_calibrator import precision_lower_bound

    assert precision_lower_bound(20, 20) == pytest.approx(0.8808, abs=1e-4)  # clears 0.88
    assert precision_lower_bound(19, 19) < 0.88 < precision_lower_bound(19, 19, z=0)
    assert precision_lower_bound(9, 10, z=0) == pytest.approx(0.9)
    assert precision_lower_bound(0, 0) == 0.0
    # Six right calls at the top are not enough: the point estimate would take them.
    from verifier.judges.reviewer_calibrator import _threshold

    p = np.arange(40) / 40
    right = np.asarray([i >= 34 or i % 2 == 0 for i in range(40)])
    lax, figures = _threshold(p, right, 0.88, z=0, supported_side=True)
    assert (lax, figures["calls"], figures["precision"]) == (0.83, 6, 1.0)
    assert _threshold(p, right, 0.88, z=1.645, supported_side=True) == (None, {})
