from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifier.judges import (
    MAX_SPANS_PER_ITEM,
    JudgeItem,
    JudgeResult,
    JudgeTransportError,
    judge_items,
)


class ScriptedJudge:
    """A judge whose answers per call are scripted; records what it was asked."""

    model_id = "scripted"
    family = "test"
    prompt_version = 1

    def __init__(self, *answers) -> None:
        self.answers = list(answers)
        self.calls: list[list[str]] = []

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        self.calls.append([it.key for it in items])
        answer = self.answers.pop(0) if self.answers else "all"
        if isinstance(answer, Exception):
            raise answer
        if answer == "all":
            return [JudgeResult(it.key, "entailed", 0.9, "ok") for it in items]
        return answer(items) if callable(answer) else answer


def _items(n: int, spans: tuple[str, ...] = ("a span",)) -> list[JudgeItem]:
    return [JudgeItem(f"k{i}", f"claim {i}", spans) for i in range(n)]


def test_one_result_per_item_in_input_order() -> None:
    items = _items(5)
    results = judge_items(ScriptedJudge(), list(reversed(items)), batch_size=2)
    assert [r.key for r in results] == ["k4", "k3", "k2", "k1", "k0"]


def test_items_without_spans_never_reach_the_judge() -> None:
    judge = ScriptedJudge()
    items = [JudgeItem("none", "c", ()), JudgeItem("blank", "c", ("  ",)), *_items(1)]
    results = judge_items(judge, items)
    assert judge.calls == [["k0"]]
    assert results[0] == JudgeResult("none", "abstained", 0.0, "no_bound_evidence")
    assert results[1].note == "no_bound_evidence"
    assert results[2].label == "entailed"


def test_omitted_items_reasked_once_then_coverage_gap() -> None:
    first = lambda items: [JudgeResult("k0", "entailed", 0.8, "")]  # noqa: E731
    judge = ScriptedJudge(first, [])
    results = judge_items(judge, _items(3))
    assert judge.calls == [["k0", "k1", "k2"], ["k1", "k2"]]
    assert [r.label for r in results] == ["entailed", "coverage_gap", "coverage_gap"]
    assert results[1].note == "omitted"


def test_reask_can_fill_the_gap() -> None:
    judge = ScriptedJudge([], "all")
    results = judge_items(judge, _items(2))
    assert [r.label for r in results] == ["entailed", "entailed"]
    assert len(judge.calls) == 2


@pytest.mark.parametrize(
    ("answer", "note"),
    [
        (JudgeResult("k0", "maybe", 0.5, ""), "unknown_label: 'maybe'"),  # type: ignore[arg-type]
        (JudgeResult("k0", "coverage_gap", 0.5, ""), "unknown_label"),
        (JudgeResult("k0", "entailed", 1.01, ""), "confidence_out_of_range"),
        (JudgeResult("k0", "entailed", -0.1, ""), "confidence_out_of_range"),
        (JudgeResult("k0", "entailed", float("nan"), ""), "confidence_out_of_range"),
        (JudgeResult("k0", "entailed", "high", ""), "malformed_confidence"),  # type: ignore[arg-type]
        (JudgeResult("k0", "entailed", True, ""), "malformed_confidence"),
    ],
)
def test_malformed_answers_become_coverage_gaps(answer: JudgeResult, note: str) -> None:
    good = JudgeResult("k1", "entailed", 0.9, "")
    results = judge_items(ScriptedJudge([answer, good]), _items(2))
    assert results[0].label == "coverage_gap"
    assert note in results[0].note
    assert results[0].confidence == 0.0
    assert results[1].label == "entailed"


def test_duplicate_keys_are_a_gap_for_that_item() -> None:
    dup = [JudgeResult("k0", "entailed", 0.9, ""), JudgeResult("k0", "entailed", 0.9, "")]
    results = judge_items(ScriptedJudge([*dup, JudgeResult("k1", "abstained", 0.5, "")]), _items(2))
    assert results[0].label == "coverage_gap" and "duplicate_key" in results[0].note
    assert results[1].label == "abstained"


def test_transport_error_gaps_only_its_batch() -> None:
    judge = ScriptedJudge(JudgeTransportError("timeout after 5s"), "all")
    results = judge_items(judge, _items(3), batch_size=2)
    assert [r.label for r in results] == ["coverage_gap", "coverage_gap", "entailed"]
    assert results[0].note == "transport_error: timeout after 5s"
    assert len(judge.calls) == 2  # transport failures are not re-asked


def test_crashing_judge_is_a_gap_not_a_pass() -> None:
    results = judge_items(ScriptedJudge(RuntimeError("bug")), _items(1))
    assert results[0].label == "coverage_gap"
    assert results[0].note == "judge_error: RuntimeError"


def test_non_list_answer_is_a_gap() -> None:
    results = judge_items(ScriptedJudge([{"k0": "entailed"}]), _items(1))
    assert results[0].label == "coverage_gap"


def test_unknown_keys_are_ignored() -> None:
    stranger = [JudgeResult("zzz", "entailed", 0.9, ""), JudgeResult("k0", "entailed", 0.9, "")]
    results = judge_items(ScriptedJudge(stranger), _items(1))
    assert [r.key for r in results] == ["k0"]


def test_duplicate_input_keys_are_rejected() -> None:
    with pytest.raises(ValueError):
        judge_items(ScriptedJudge(), [JudgeItem("a", "c", ("s",)), JudgeItem("a", "c", ("s",))])


def test_item_allows_at_most_three_spans() -> None:
    JudgeItem("k", "c", ("a",) * MAX_SPANS_PER_ITEM)
    with pytest.raises(ValueError):
        JudgeItem("k", "c", ("a",) * (MAX_SPANS_PER_ITEM + 1))
