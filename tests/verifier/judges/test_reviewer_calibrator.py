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
    assert combine("entailed", "contradicted") == "contradicted"
    assert combine("abstained", None) == "abstained"


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


def test_the_floor_is_held_by_the_lower_end_of_the_interval_not_the_point_estimate() -> None:
    from verifier.judges.reviewer_calibrator import wilson_lower

    assert wilson_lower(30, 30) == pytest.approx(0.9173, abs=1e-4)
    assert wilson_lower(5, 5) < 0.7  # five right calls say little
    assert wilson_lower(0, 0) == 0.0
    # 24 decisions with a perfect split still decide nothing: no threshold's calls are
    # numerous enough for the bound to reach 0.88
    rows, supported = synthetic(24, 5, separation=8.0)
    calibrator = fit_calibrator(rows, supported, NAMES, floor=0.88, seed=0)
    assert not calibrator.decides_anything
