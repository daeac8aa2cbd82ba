"""Example tests for bind: each stage, the folds, the fuzzy floor, never raising."""

from __future__ import annotations

import pytest

from verifier.binding import DEFAULT_FUZZY_FLOOR, FUZZY_MIN_TOKENS, bind, normalize, source_index


def span(text: str, quote: str) -> tuple[str, str]:
    found = bind(quote, text)
    assert found is not None
    return text[found.start : found.end], found.match


def test_exact_takes_the_first_occurrence() -> None:
    text = "one two one two"
    found = bind("one two", text)
    assert found is not None
    assert (found.start, found.end, found.match, found.score) == (0, 7, "exact", 1.0)


def test_normalized_folds_case_whitespace_quotes_and_dashes() -> None:
    text = "He said \u201cIt\u2019s  over\u201d \u2014 then   LEFT."
    assert span(text, 'he said "it\'s over" - then left') == (text[:-1], "normalized")


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        (
            "The \ufb01rst \ufb02oor o\ufb03ce.",
            "the first floor office",
            "The \ufb01rst \ufb02oor o\ufb03ce",
        ),
        ("costs 5\u00a0000 euros", "5 000 euros", "5\u00a0000 euros"),
        (
            "a co\u00adop\u00aderative venture",
            "cooperative venture",
            "co\u00adop\u00aderative venture",
        ),
        (
            "zero\u200bwidth\u200c\u200d\u2060 join\ufeffer",
            "zerowidth joiner",
            "zero\u200bwidth\u200c\u200d\u2060 join\ufeffer",
        ),
        (
            "pages 10\u201312 and \u221240\u00b0",
            "pages 10-12 and -40\u00b0",
            "pages 10\u201312 and \u221240\u00b0",
        ),
        ("Stra\u00dfe und Fu\u00df", "STRASSE UND FUSS", "Stra\u00dfe und Fu\u00df"),
        ("caf\u00e9 au lait", "cafe\u0301 au lait", "caf\u00e9 au lait"),
        (
            "\u05e9\u05dc\u05d5\u05dd\u200f \u05e2\u05d5\u05dc\u05dd",
            "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd",
            "\u05e9\u05dc\u05d5\u05dd\u200f \u05e2\u05d5\u05dc\u05dd",
        ),
        ("\uff21\uff22\uff23 full width", "abc full width", "\uff21\uff22\uff23 full width"),
    ],
)
def test_normalized_maps_back_to_whole_original_characters(
    text: str, quote: str, expected: str
) -> None:
    assert span(text, quote) == (expected, "normalized")


def test_a_match_inside_a_ligature_does_not_bind() -> None:
    # "irst" would start in the middle of "\ufb01"; no whole-character span exists.
    assert bind("irst floor", "the \ufb01rst floor") is None


def test_normalize_is_nfkc_for_display() -> None:
    assert normalize("  Cafe\u0301\u00a0\u201cOK\u201d\u2014\ufb01ne ") == 'caf\u00e9 "ok"-fine'


TEXT = (
    "The committee approved the annual budget after a long debate on Tuesday. "
    "Several members objected to the proposed cuts in public transport funding."
)


def test_fuzzy_binds_with_its_score_when_words_changed() -> None:
    quote = "Several members objected to the planned cuts in public transport funding"
    found = bind(quote, TEXT)
    assert found is not None
    assert found.match == "fuzzy"
    assert DEFAULT_FUZZY_FLOOR <= found.score < 1.0
    assert TEXT[found.start : found.end].startswith("Several members objected")
    assert TEXT[found.start : found.end].endswith("funding")


def test_fuzzy_below_the_floor_does_not_bind() -> None:
    quote = "Several members objected to the planned cuts in public transport funding"
    score = bind(quote, TEXT)
    assert score is not None
    assert bind(quote, TEXT, fuzzy_floor=min(1.0, score.score + 0.01)) is None
    assert bind("Nobody at all liked the new railway timetable this spring", TEXT) is None


def test_fuzzy_is_not_tried_for_short_quotes() -> None:
    assert FUZZY_MIN_TOKENS == 4
    assert bind("annual budgett approved", TEXT, fuzzy_floor=0.1) is None
    found = bind("the annual budgett after", TEXT, fuzzy_floor=0.5)
    assert found is not None
    assert found.match == "fuzzy"


def test_fuzzy_search_is_bounded_on_a_long_text() -> None:
    filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 100_000
    text = filler + TEXT + filler
    index = source_index(text)
    quote = "Several members objected to the planned cuts in public transport funding"
    found = bind(quote, text, index=index)
    assert found is not None
    assert found.match == "fuzzy"
    assert text[found.start : found.end].startswith("Several members")


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("", "text"),
        ("   \n\t", "some   \n\t text"),
        ("a much longer quote than the text", "short"),
        ("absent", ""),
        ("nothing like it here", "completely different words in this source"),
        ("lone \ud800 surrogate", "lone \ud800 surrogate in the text"[:5]),
        ("x", "lone \udfff"),
    ],
)
def test_bind_returns_none_instead_of_raising(quote: str, text: str) -> None:
    assert bind(quote, text) is None


def test_lone_surrogates_still_bind_exactly() -> None:
    text = "bad \ud800 byte"
    found = bind("\ud800 byte", text)
    assert found is not None
    assert found.match == "exact"


def test_an_index_for_another_text_is_not_trusted() -> None:
    other = source_index("a different text")
    found = bind("HELLO", "say hello", index=other)
    assert found is not None
    assert (found.start, found.end, found.match) == (4, 9, "normalized")
