"""One abbreviation list for both splitters, what only one of them knows named apart."""

from __future__ import annotations

from verifier.text import abbreviations as ab


def test_each_splitter_reads_the_shared_list_plus_its_own() -> None:
    assert ab.ABBREVIATIONS <= ab.SENTENCE_SPAN_ABBREVIATIONS
    assert ab.CLOSING_ABBREVIATIONS <= ab.SENTENCE_SPAN_CLOSING_ABBREVIATIONS
    assert ab.ABBREVIATIONS | ab.CLOSING_ABBREVIATIONS <= ab.EXTRACTOR_ABBREVIATIONS
    # What both know is exactly the shared list (the named differences are real).
    both = (
        ab.SENTENCE_SPAN_ABBREVIATIONS | ab.SENTENCE_SPAN_CLOSING_ABBREVIATIONS
    ) & ab.EXTRACTOR_ABBREVIATIONS
    assert both == ab.ABBREVIATIONS | ab.CLOSING_ABBREVIATIONS
    assert ab.SENTENCE_SPAN_ABBREVIATIONS.isdisjoint(ab.SENTENCE_SPAN_CLOSING_ABBREVIATIONS)


def test_the_lists_keep_their_sizes() -> None:
    assert len(ab.SENTENCE_SPAN_ABBREVIATIONS) == 37
    assert len(ab.SENTENCE_SPAN_CLOSING_ABBREVIATIONS) == 9
    assert len(ab.EXTRACTOR_ABBREVIATIONS) == 51


def test_abbreviations_are_lower_case_without_their_final_dot() -> None:
    every = (
        ab.SENTENCE_SPAN_ABBREVIATIONS
        | ab.SENTENCE_SPAN_CLOSING_ABBREVIATIONS
        | ab.EXTRACTOR_ABBREVIATIONS
    )
    assert all(word == word.lower() and not word.endswith(".") for word in every)
