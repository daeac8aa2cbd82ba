"""The default judge: the heuristic, with the shipped spanproof-nli-v2 reading again the
claims only wording kept from being entailed. Real heuristic, real model, real
embeddings; never a stand-in for either reader."""

from __future__ import annotations

import pytest

from verifier.judges import JudgeItem, build_judge, heuristic, judge_config_from_env
from verifier.judges.cross_encoder import factory
from verifier.judges.cross_encoder.calibration import Calibration
from verifier.judges.cross_encoder.encoding import premise_text
from verifier.judges.cross_encoder.judge import CrossEncoderJudge, Reading
from verifier.judges.heuristic import HeuristicJudge
from verifier.judges.nli import v2
from verifier.judges.reading import judge_reading
from verifier.judges.registry import DEFAULT_BACKEND
from verifier.judges.second_reading import (
    MODEL_ID,
    PROMPT_VERSION,
    READING_FEATURES,
    REREAD_COVERAGE_MIN,
    ROUTE_VERSION,
    SECOND_READING_CONFIDENCE,
    SECOND_READING_MIN,
    SecondReadingJudge,
    rereadable,
)

# Faithful, reworded: the heuristic finds too few of the claim's words in the span.
PARAPHRASE = JudgeItem(
    key="paraphrase",
    claim=(
        "Port Harbour's 11-game unbeaten league run was ended by an 89th-minute goal from "
        "substitute Kieran Maddox."
    ),
    spans=(
        "Substitute Kieran Maddox scored in the 89th minute to give Ashby Rovers a 3-2 "
        "victory over Port Harbour and end the visitors' 11-match unbeaten run in the league.",
    ),
    context="Rovers snatch late winner to end Harbour's unbeaten run.",
)
# Not said by the span (it gives the quarter's profit), in words the span partly shares.
UNSAID = JudgeItem(
    key="unsaid",
    claim="Halvorsen Foods cut its full-year revenue growth forecast.",
    spans=(
        "Halvorsen Foods reported on Thursday that net profit for the third quarter rose 12 "
        "percent to $184 million, helped by stronger sales of frozen meals and lower freight "
        "costs.",
    ),
)
# The same wording with a number the span does not give: a blocker, never re-read.
WRONG_YEAR = JudgeItem(
    key="wrong-year",
    claim="The lighthouse keepers left the island for good in 1962.",
    spans=(
        "The last keepers were withdrawn from the island in 1958, when the light was automated.",
    ),
)
# Almost none of the claim is in the span: below the coverage floor, never re-read.
UNRELATED = JudgeItem(
    key="unrelated",
    claim="Volunteers planted oak saplings along the northern ridge last spring.",
    spans=("The museum's winter exhibition features maps of the harbour drawn in 1790.",),
)


@pytest.fixture(scope="module")
def judge() -> SecondReadingJudge:
    built = build_judge({"backend": "heuristic+nli-v2"})
    assert isinstance(built, SecondReadingJudge)
    return built


def _probability(judge: SecondReadingJudge, item: JudgeItem) -> float:
    cands = judge.first.assess([item])[0]
    answer = heuristic.decide(item.key, cands, judge.first.thresholds)
    chosen = rereadable(cands, answer, judge.first.thresholds)
    assert chosen, answer.note
    premises = tuple((c.label, premise_text(c.text, item.context)) for c in chosen)
    score = judge.second.score_readings([Reading(item.claim, premises)])[0]
    assert score is not None
    return score.p_entailed


def test_it_is_the_default_judge_and_names_both_readers() -> None:
    assert DEFAULT_BACKEND == "heuristic+nli-v2"
    assert judge_config_from_env({}) == {"backend": "heuristic+nli-v2"}
    assert MODEL_ID == "spanproof-heuristic-v1+nli-v2"
    assert PROMPT_VERSION == heuristic.PROMPT_VERSION * 100 + v2.PROMPT_VERSION * 10 + ROUTE_VERSION
    assert build_judge({"backend": "hybrid"}).model_id == MODEL_ID
    assert build_judge({"backend": "heuristic"}).model_id == heuristic.MODEL_ID


def test_a_reworded_claim_the_heuristic_leaves_is_entailed_by_the_second_reading(
    judge: SecondReadingJudge,
) -> None:
    alone = HeuristicJudge().judge_batch([PARAPHRASE])[0]
    assert alone.label == "abstained" and alone.note.startswith("signals_disagree")
    p = _probability(judge, PARAPHRASE)
    assert p >= SECOND_READING_MIN
    result = judge.judge_batch([PARAPHRASE])[0]
    assert result.label == "entailed"
    assert result.confidence == SECOND_READING_CONFIDENCE
    assert f"P(entailed) {p:.2f}" in result.note
    assert "spanproof-nli-v2" in result.note and result.note.endswith(alone.note)


def test_a_claim_with_a_blocking_signal_is_never_read_again(judge: SecondReadingJudge) -> None:
    alone = HeuristicJudge().judge_batch([WRONG_YEAR])[0]
    result = judge.judge_batch([WRONG_YEAR])[0]
    assert result == alone
    assert "second reading" not in result.note


def test_a_claim_mostly_absent_from_the_span_is_never_read_again(
    judge: SecondReadingJudge,
) -> None:
    cands = judge.first.assess([UNRELATED])[0]
    assert not any(c.blockers for c in cands)  # only its coverage keeps it from a re-reading
    assert max(c.coverage for c in cands) < REREAD_COVERAGE_MIN
    alone = HeuristicJudge().judge_batch([UNRELATED])[0]
    assert judge.judge_batch([UNRELATED])[0] == alone


def test_what_the_heuristic_entails_or_contradicts_is_its_answer(judge: SecondReadingJudge) -> None:
    items = [
        JudgeItem("same", "The bridge opened in 1850.", ("The bridge opened in 1850.",)),
        JudgeItem("negated", "The bridge did not open in 1850.", ("The bridge opened in 1850.",)),
    ]
    assert judge.judge_batch(items) == HeuristicJudge().judge_batch(items)


def test_an_abstention_it_reads_again_keeps_the_models_probability_in_its_note(
    judge: SecondReadingJudge,
) -> None:
    alone = HeuristicJudge().judge_batch([UNSAID])[0]
    assert alone.label == "abstained" and alone.note.startswith("low_coverage")
    p = _probability(judge, UNSAID)
    assert p < SECOND_READING_MIN
    result = judge.judge_batch([UNSAID])[0]
    assert (result.label, result.confidence) == (alone.label, alone.confidence)
    assert result.note == f"{alone.note}; second reading: P(entailed) {p:.2f}"


def test_a_second_reader_that_fails_leaves_the_heuristics_answers(caplog) -> None:
    def broken():
        raise RuntimeError("model file unreadable")

    failing = CrossEncoderJudge(
        model_id=v2.MODEL_ID,
        family=v2.FAMILY,
        prompt_version=v2.PROMPT_VERSION,
        load=broken,
        calibration=Calibration(),
    )
    judge = SecondReadingJudge(HeuristicJudge(), failing)
    with caplog.at_level("WARNING"):
        results = judge.judge_batch([PARAPHRASE, WRONG_YEAR])
    assert results == HeuristicJudge().judge_batch([PARAPHRASE, WRONG_YEAR])
    assert "second reading unavailable" in caplog.text


def test_its_reading_adds_whether_and_how_the_second_reader_read(
    judge: SecondReadingJudge,
) -> None:
    empty = JudgeItem("empty", "The bridge opened in 1850.", ("",))
    reading = judge_reading(judge, [PARAPHRASE, WRONG_YEAR, empty])
    names = list(reading.names)
    assert names[-len(READING_FEATURES) :] == list(READING_FEATURES)
    read = reading.rows[:, names.index("second_read")]
    p = reading.rows[:, names.index("second_p_entailed")]
    assert list(read) == [1.0, 0.0, 0.0]
    assert p[0] == pytest.approx(_probability(judge, PARAPHRASE), abs=1e-6)
    assert [r.key for r in reading.results] == ["paraphrase", "wrong-year", "empty"]
    assert reading.results[2].label == "abstained"


def test_the_model_is_loaded_once_per_process() -> None:
    first = build_judge({"backend": "heuristic+nli-v2"})
    second = build_judge({"backend": "heuristic+nli-v2"})
    assert isinstance(first, SecondReadingJudge) and isinstance(second, SecondReadingJudge)
    assert first.second is second.second is factory.nli_v2_judge()
