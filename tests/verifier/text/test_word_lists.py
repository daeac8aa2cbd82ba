"""The text layer's word lists: one base list per kind, each derived list's difference
named, and each caller reading the list it read before the text layer existed."""

from __future__ import annotations

from verifier.text import hedges
from verifier.text import negations as neg
from verifier.text import stopwords as sw


def test_the_judge_never_drops_negation_or_scope_words() -> None:
    assert sw.STOPWORDS.isdisjoint(sw.JUDGE_CONTENT_WORDS)


def test_retrieval_stopwords_are_the_judge_list_with_named_differences() -> None:
    # Each named difference really differs (no word listed for nothing).
    assert sw.RETRIEVAL_CONTENT_WORDS <= sw.STOPWORDS
    assert sw.RETRIEVAL_EXTRA_STOPWORDS.isdisjoint(sw.STOPWORDS)
    assert (
        sw.RETRIEVAL_STOPWORDS
        == (sw.STOPWORDS - sw.RETRIEVAL_CONTENT_WORDS) | sw.RETRIEVAL_EXTRA_STOPWORDS
    )
    # Retrieval drops quantifiers and negations the judge must read ...
    assert {"no", "not", "all", "some"} <= sw.RETRIEVAL_STOPWORDS
    assert {"no", "not", "all", "some"}.isdisjoint(sw.STOPWORDS)
    # ... and keeps connectives and contraction fragments the judge drops.
    assert {"however", "because", "without", "s", "ll"}.isdisjoint(sw.RETRIEVAL_STOPWORDS)


def test_preview_stopwords_are_retrieval_ones_of_three_letters_or_more() -> None:
    assert sw.PREVIEW_CONTENT_WORDS <= sw.RETRIEVAL_STOPWORDS
    assert sw.PREVIEW_EXTRA_STOPWORDS.isdisjoint(sw.RETRIEVAL_STOPWORDS)
    assert all(len(word) >= 3 for word in sw.PREVIEW_STOPWORDS)
    assert {"could", "would", "not", "all"} <= sw.PREVIEW_STOPWORDS
    assert {"about", "only", "she"}.isdisjoint(sw.PREVIEW_STOPWORDS)


def test_the_lists_keep_the_sizes_each_caller_had() -> None:
    """160 (judge), 109 (worker) and 57 (rule-set preview) words, as before the text
    layer: a changed size is a changed behaviour and needs its own commit."""
    assert (len(sw.STOPWORDS), len(sw.RETRIEVAL_STOPWORDS), len(sw.PREVIEW_STOPWORDS)) == (
        160,
        109,
        57,
    )


def test_callers_read_their_own_list() -> None:
    from verifier.claim_worker import text
    from verifier.pipeline import relating
    from verifier.scoring import dimension_heuristics

    assert relating.STOPWORDS is sw.STOPWORDS
    assert text.content_tokens("Not all birds fly south, however") == {
        "birds",
        "fly",
        "south",
        "however",
    }
    assert dimension_heuristics._content(["not", "about", "she", "could", "birds"]) == {
        "about",
        "she",
        "birds",
    }


def test_negation_lists_nest_with_named_differences() -> None:
    assert neg.NEGATIVE_WORDS < neg.NEGATIONS < neg.NEGATION_WORDS
    assert {"without"} == neg.NEGATIONS - neg.NEGATIVE_WORDS
    assert neg.JUDGE_NEGATION_CUES.isdisjoint(neg.NEGATIONS)
    assert len(neg.NEGATION_WORDS) == 51
    assert all(first in neg.NEGATION_WORDS for first, _ in neg.NON_NEGATION_PHRASES)


def test_negation_words_the_judge_also_drops_for_coverage() -> None:
    """Of all negation words only "neither" and "without" are judge stopwords: they
    count for no coverage, yet their polarity is read. Every other one is content."""
    assert {"neither", "without"} == neg.NEGATION_WORDS & sw.STOPWORDS


def test_has_negation_counts_without_and_contractions_only_beyond_the_n_words() -> None:
    assert neg.has_negation(["it", "isn't"])
    assert neg.has_negation(["done", "without", "help"])
    assert not neg.has_negation(["the", "study", "lacks", "controls"])  # a judge cue only


def test_each_caller_reads_its_negation_list() -> None:
    from verifier.claim_worker.text import claim_features
    from verifier.pipeline.relating import is_negated

    text = "The pump runs without power."
    assert is_negated(text)  # relate stage: NEGATIONS
    assert not claim_features(text).negated  # worker: NEGATIVE_WORDS, no "without"
    assert claim_features("The pump never runs.").negated


def test_each_hedge_list_is_the_shared_hedges_plus_named_groups() -> None:
    for derived in (hedges.OVERCLAIM_HEDGES, hedges.PREVIEW_HEDGES, hedges.UNCERTAINTY_CUES):
        assert derived > hedges.HEDGES
    assert hedges.HEDGES == (
        hedges.OVERCLAIM_HEDGES & hedges.PREVIEW_HEDGES & hedges.UNCERTAINTY_CUES
    )
    # Scope words hedge an answer or a preview, never make a claim "uncertain".
    assert hedges.SCOPE_HEDGES <= hedges.OVERCLAIM_HEDGES & hedges.PREVIEW_HEDGES
    assert hedges.SCOPE_HEDGES.isdisjoint(hedges.UNCERTAINTY_CUES)
    assert hedges.PROBABILITY_HEDGES.isdisjoint(hedges.OVERCLAIM_HEDGES)
    assert (len(hedges.OVERCLAIM_HEDGES), len(hedges.PREVIEW_HEDGES)) == (20, 16)
    assert len(hedges.UNCERTAINTY_CUES) == 25


def test_absolute_lists_are_the_shared_absolutes_plus_named_groups() -> None:
    from verifier.rag.overclaims import ABSOLUTES as SOFTER

    assert hedges.ABSOLUTES < hedges.PREVIEW_UNIVERSALS
    assert hedges.ABSOLUTES < hedges.ABSOLUTE_QUANTIFIERS
    assert hedges.ABSOLUTES.isdisjoint(hedges.HEDGES | neg.JUDGE_NEGATION_CUES)
    # Every universal the preview penalises has a softer wording for the RAG fix.
    assert set(SOFTER) >= hedges.PREVIEW_UNIVERSALS
    assert (len(hedges.PREVIEW_UNIVERSALS), len(hedges.ABSOLUTE_QUANTIFIERS)) == (15, 14)


def test_each_caller_reads_its_hedge_list() -> None:
    from verifier.claim_worker.text import claim_features
    from verifier.rag.overclaims import find_overclaims

    dropped = find_overclaims("Coffee causes cancer.", "Coffee is associated with cancer.")
    assert [(o.kind, o.evidence_word) for o in dropped] == [("dropped_hedge", "associated")]
    assert claim_features("The mayor reportedly resigned.").uncertain
    assert not claim_features("The mayor often resigned.").uncertain
    assert claim_features("Only the mayor resigned.").absolute


def test_spoken_hedges_and_certainty_match_phrases() -> None:
    assert hedges.SPOKEN_HEDGE.search("I'll try to send it")
    assert not hedges.SPOKEN_HEDGE.search("Due May 5")
    assert hedges.SPOKEN_CERTAINTY.search("I will send it for sure")
