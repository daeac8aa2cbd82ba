"""Soft matching of the claim words the lexicon leaves uncovered, with the real MiniLM."""

from __future__ import annotations

import pytest

from verifier.judges.base import JudgeItem
from verifier.judges.heuristic import COVERAGE_FLOOR, HeuristicJudge
from verifier.judges.signals import compare
from verifier.judges.soft_alignment import soft_matches, word_vectors


def matches(claim: str, span: str, uncovered: list[str]) -> dict[str, str]:
    claim_vectors, span_vectors = word_vectors([claim, span])
    found = soft_matches(claim, span, uncovered, claim_vectors, span_vectors)
    return {m.claim_word: m.span_word for m in found}


def test_a_synonym_no_table_lists_is_read_in_context() -> None:
    assert matches(
        "Kelp beds vanished from the bay.", "Kelp beds disappeared from the bay.", ["vanished"]
    ) == {"vanished": "disappeared"}


@pytest.mark.parametrize(
    ("claim", "span", "word"),
    [
        ("Sales rose sharply in May.", "Sales fell sharply in May.", "rose"),
        ("The guards surrendered the fort.", "The guards defended the fort.", "surrendered"),
        ("The ship sank in the harbour.", "The ship was repainted in the harbour.", "sank"),
    ],
)
def test_antonyms_and_other_events_are_not_matched(claim: str, span: str, word: str) -> None:
    assert matches(claim, span, [word]) == {}


def test_one_vector_per_judge_token() -> None:
    text = "Oduya's team dug 24-by-11-metre trenches; the hall isn't older."
    (vectors,) = word_vectors([text])
    from verifier.judges.signals import profile

    assert vectors.shape == (len(profile(text).tokens), 384)
    assert abs(float((vectors**2).sum(axis=1).min()) - 1.0) < 1e-4  # unit vectors


def test_the_judge_entails_a_paraphrase_the_lexicon_alone_left_uncovered() -> None:
    claim = (
        "According to the surviving 1302 building accounts, masons, carpenters and smiths "
        "were paid £1,150, a sum that exceeded five years of the manor's income."
    )
    span = (
        "Building accounts that survive from 1302 record payments of £1,150 to masons, "
        "carpenters and smiths, more than the manor's income for five years."
    )
    assert compare(claim, span).coverage < COVERAGE_FLOOR  # the lexicon alone abstains
    (result,) = HeuristicJudge().judge_batch([JudgeItem("k", claim, (span,))])
    assert result.label == "entailed", result.note
    assert "'paid' read as 'payments'" in result.note


def test_a_soft_match_never_lifts_a_blocking_signal() -> None:
    claim = "The garrison abandoned the fort in 1323 after the long siege."
    span = "The garrison gave up the fort in 1322 after the long siege."
    (result,) = HeuristicJudge().judge_batch([JudgeItem("k", claim, (span,))])
    assert result.label != "entailed"
    assert "1323" in result.note


def test_a_span_word_the_claim_already_says_reads_no_other_claim_word() -> None:
    """ "group" sits closest to "member" in context, but the claim says "member" itself:
    the added "founder member of the group" must stay uncovered."""
    claim = "Brian Pendleton was a founder member of the pop group The Pretty Things"
    span = "Brian Pendleton was a member of The Pretty Things from 1963 to 1966."
    assert "group" not in matches(claim, span, ["founder", "pop", "group"])
    (result,) = HeuristicJudge().judge_batch([JudgeItem("k", claim, (span,))])
    assert result.label != "entailed", result.note
