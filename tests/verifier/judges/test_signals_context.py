"""Faithful restatements the lexical signals used to block, each read from a false flag
seen in the console or on the seed's planted claims, and the near misses that must stay
blocked beside them."""

from __future__ import annotations

import pytest

from verifier.judges import JudgeItem
from verifier.judges.heuristic import HeuristicJudge
from verifier.judges.signals import compare


def notes(claim: str, span: str, context: str = "") -> list[str]:
    return [b.note for b in compare(claim, span, context).blockers]


def test_no_before_a_number_is_the_number_sign_not_a_negation() -> None:
    text = "Smith was the No. 7 seed at the open."
    assert notes(text, text) == []
    assert notes("Smith was the no 7 seed.", "Smith was the no 7 seed.") == []
    assert any("negation" in n for n in notes("Smith was no seed.", "Smith was a seed."))


def test_a_name_given_by_the_title_or_the_sentence_before_is_not_missing() -> None:
    claim, span = "Tarn Point Light was automated in 1987.", "The light was automated in 1987."
    without = compare(claim, span)
    assert without.coverage == 0.5 and without.uncovered == ("Tarn", "Point")
    with_title = compare(claim, span, "Tarn Point Light.")
    assert with_title.coverage == 1.0 and with_title.blockers == ()
    assert "'Tarn Point' from the context" in with_title.resolved
    assert (
        notes(
            "Kant held that space is a form of intuition.",
            "Space, he proposed, is a form of intuition.",
            "Kant wrote the Critique.",
        )
        == []
    )


def test_the_context_gives_names_never_support() -> None:
    # the year is only in the context: still unsupported by the span
    result = compare(
        "Tarn Point Light was automated in 1987.",
        "The light was automated.",
        "Tarn Point Light was automated in 1987.",
    )
    assert any("number_unsupported" in n for n in (b.note for b in result.blockers))
    # a different name than the context's is still a mismatch
    assert any(
        "entity_mismatch: 'hume'" in n
        for n in notes(
            "Hume held that space is a form of intuition.",
            "Space, he proposed, is a form of intuition.",
            "Kant wrote the Critique.",
        )
    )


def test_an_attributed_claim_may_restate_the_span_s_attribution_verb() -> None:
    assert (
        notes(
            "The court held that the contract was void.",
            "The contract was void, as proposed by the court.",
        )
        == []
    )
    # the claim drops the attribution: the span's hedge still counts
    assert notes("The contract was void.", "The contract was void, as proposed by the court.")


@pytest.mark.parametrize(
    ("claim", "span", "blocked"),
    [
        (
            "Moral worth is independent of consequences.",
            "Moral worth does not rest on consequences.",
            False,
        ),
        ("Moral worth is independent of consequences.", "Moral worth rests on consequences.", True),
        ("The rate was unchanged in 2020.", "The rate did not change in 2020.", False),
        ("The rate was unchanged in 2020.", "The rate changed in 2020.", True),
    ],
)
def test_words_that_say_not_by_themselves_count_as_negations(
    claim: str, span: str, blocked: bool
) -> None:
    assert bool(notes(claim, span)) is blocked


def test_a_quantifier_in_a_neighbouring_clause_does_not_hedge_the_claim() -> None:
    assert (
        notes(
            "The film won three awards.", "Some critics disliked it, but the film won three awards."
        )
        == []
    )
    assert notes("The critics disliked it.", "Some critics disliked it.")  # its own nouns
    assert notes("Sleep helps memory.", "Sleep, some argue, helps memory.")  # a frame still hedges


def test_the_heuristic_judge_reads_the_context() -> None:
    judge = HeuristicJudge()
    item = JudgeItem(
        "k",
        "Tarn Point Light was automated in 1987.",
        ("The light was automated in 1987.",),
        context="Tarn Point Light.",
    )
    bare = JudgeItem("b", item.claim, item.spans)
    by_key = {r.key: r for r in judge.judge_batch([item, bare])}
    assert by_key["k"].label == "entailed"
    assert by_key["b"].label == "abstained"
