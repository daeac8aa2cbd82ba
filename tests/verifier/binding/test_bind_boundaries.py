"""Word boundaries, the fuzzy guard, degenerate quotes and occurrences: what a quote may
not bind to, and what it still binds to."""

from __future__ import annotations

import pytest

from verifier.binding import (
    OCCURRENCES_COUNTED,
    BindingInputError,
    bind,
    occurrences,
    on_word_boundaries,
    validate_quote,
)


def bound(quote: str, text: str) -> str | None:
    found = bind(quote, text)
    return None if found is None else text[found.start : found.end]


# --- 1. a quote never binds from inside a word ---------------------------------------


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        # the walker's case: "effective" inside "ineffective" says the opposite
        ("effective against viruses.", "Antibiotics are ineffective against viruses."),
        # the normalized stage too (case and spacing folded)
        ("EFFECTIVE  against viruses", "Antibiotics are ineffective against viruses."),
        # a soft hyphen the fold removes does not split the word
        ("effective against viruses", "Antibiotics are in\u00adeffective against viruses."),
        # a word ending inside a longer one
        ("pier was close", "The pier was closed in 2019."),
        # hyphenated and contracted words are one word
        ("toxic to humans", "The compound is non-toxic to humans."),
        ("Penguins can", "Penguins can't fly."),
        ("Penguins don'", "Penguins don't fly."),
        ("'t fly", "Penguins don't fly."),
        # numbers: digits joined by separators, and a sign, are one number
        ("900 people", "About 3,900 people came."),
        ("costs 1", "It costs 1,900 euros."),
        ("5 percent", "It rose 2.5 percent."),
        ("40 degrees", "It fell to -40 degrees."),
        ("19 visitors", "In 2019 visitors came."),
        # other scripts written with spaces: Cyrillic, Greek, Devanagari with its marks
        ("правда", "Это неправда."),
        ("γος", "Ο λόγος."),
        ("\u0915", "\u0915\u093e \u0916"),
        # a combining mark belongs to the letter before it
        ("cafe", "cafe\u0301 au lait"),
    ],
)
def test_a_quote_inside_a_word_does_not_bind(quote: str, text: str) -> None:
    assert bind(quote, text) is None


def test_a_later_occurrence_on_word_boundaries_is_bound() -> None:
    text = "Antibiotics are ineffective against viruses. Vaccines are effective against viruses."
    found = bind("effective against viruses.", text)
    assert found is not None and found.match == "exact"
    assert found.start == text.rindex("effective against viruses.")


@pytest.mark.parametrize(
    ("quote", "text", "expected"),
    [
        # punctuation at a quote's edge needs no boundary
        ('"Effective," he said', 'They wrote "Effective," he said.', '"Effective," he said'),
        ("(see above)", "as noted(see above).", "(see above)"),
        ("'effective' dose", "the 'effective' dose", "'effective' dose"),
        ("1,900 visitors", "About 1,900 visitors came.", "1,900 visitors"),
        ("non-toxic", "It is non-toxic.", "non-toxic"),
        # scripts without spaces between words: any position between letters
        ("北京", "我爱北京天安门", "北京"),
        ("สวัสดี", "คำว่าสวัสดีครับ", "สวัสดี"),
        ("iPhone", "我的iPhone手机", "iPhone"),
        # a zero-width space is a word break
        ("effective", "in\u200beffective", "effective"),
        # a single whole word binds
        ("a", "It was a test.", "a"),
        ("café", "Le café au lait.", "café"),
    ],
)
def test_a_quote_on_word_boundaries_binds(quote: str, text: str, expected: str) -> None:
    assert bound(quote, text) == expected


def test_fuzzy_spans_also_start_and_end_on_word_boundaries() -> None:
    # exact and normalized fail (inside "non-toxic"); the fuzzy window may not start
    # at "toxic" either, and "non-toxic ..." differs from the quote by a negation
    text = "The compound is non-toxic to humans at low doses."
    assert bind("toxic to humans at low doses.", text) is None
    assert bind("The compound is toxic to humans at low doses.", text) is None


def test_the_boundary_predicate_reads_the_original_text() -> None:
    text = "Antibiotics are ineffective against viruses."
    start = text.index("effective")
    assert not on_word_boundaries(text, start, len(text))
    assert on_word_boundaries(text, start - 2, len(text))


# --- 2. a fuzzy bind never changes a negation or a number ------------------------------


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("The pier was never closed in 2019.", "The pier was closed in 2019. It reopened."),
        ("The pier was closed in 2019.", "The pier was not closed in 2019. It reopened."),
        ("The pier had 1,900 visitors in May.", "The pier had 1,200 visitors in May. Later."),
        ("The pier had 1,900 visitors in May.", "The pier had 1900 visitors in May. Later."),
        ("The pier had three hundred visitors.", "The pier had two hundred visitors. Later."),
        ("The wall was rebuilt in the 1998 storm.", "The wall was rebuilt in the 1988 storm."),
        ("The harbour wall cannot be repaired.", "The harbour wall can be repaired."),
        # Words from the judge's number tables (one set, ``verifier.text.numbers``).
        ("Two thirds of the piers were closed.", "Two quarters of the piers were closed."),
        ("The port earned 3 bn dollars in 2019.", "The port earned 3 m dollars in 2019."),
    ],
)
def test_a_fuzzy_match_that_changes_a_negation_or_a_number_does_not_bind(
    quote: str, text: str
) -> None:
    assert bind(quote, text) is None


def test_a_fuzzy_slip_that_keeps_negations_and_numbers_still_binds() -> None:
    text = "The pier is not closed in the winter months of 2019."
    found = bind("The pier isn't closed in the wintre months of 2019.", text)
    assert found is not None and found.match == "fuzzy"
    assert 0.85 <= found.score < 1.0


def test_fuzzy_takes_the_window_that_keeps_the_meaning() -> None:
    first = "The pier was not closed in 2019 by the council."
    second = "The pier was closed in 2019 by the council members."
    text = f"{first} Many years passed, and much was said. {second}"
    found = bind("The pier was closed in 2019 by the counsil.", text)
    assert found is not None and found.match == "fuzzy"
    assert found.start == text.index(second)


# --- 3. degenerate quotes ---------------------------------------------------------------


@pytest.mark.parametrize("quote", ["", "   ", "\n\t", ".", "...", "\u2014", "\u00ad", "()"])
def test_a_quote_without_a_letter_or_digit_is_invalid_and_binds_nowhere(quote: str) -> None:
    with pytest.raises(BindingInputError) as raised:
        validate_quote(quote)
    assert raised.value.code == "invalid_quote"
    assert bind(quote, "It was. ... \u2014 () a \u00ad test.") is None


@pytest.mark.parametrize("quote", ["a", "7", "中", "It was.", "\u00ab\u00a0Oui\u00a0\u00bb"])
def test_a_quote_with_a_letter_or_digit_is_valid(quote: str) -> None:
    validate_quote(quote)


def test_an_invalid_unicode_quote_is_an_invalid_quote() -> None:
    with pytest.raises(BindingInputError) as raised:
        validate_quote("lone \ud800 surrogate")
    assert raised.value.code == "invalid_quote"


def test_a_single_letter_binds_only_as_a_word() -> None:
    assert bind("a", "it was") is None
    assert bound("a", "it was a test") == "a"


# --- occurrences: the first of several is bound, and they are counted -------------------


def test_occurrences_are_counted_the_way_the_quote_matched() -> None:
    text = "The pier was closed. THE PIER was closed. The piers were closed. The pier was closed."
    exact = bind("The pier was closed.", text)
    assert exact is not None and exact.start == 0 and exact.match == "exact"
    assert occurrences("The pier was closed.", text, exact) == 2
    normalized = bind("the pier  was closed.", text)
    assert normalized is not None and normalized.start == 0
    assert normalized.match == "normalized"
    assert occurrences("the pier  was closed.", text, normalized) == 3
    once = bind("The piers were closed.", text)
    assert once is not None and occurrences("The piers were closed.", text, once) == 1


def test_occurrences_are_counted_up_to_a_bound_and_not_for_fuzzy() -> None:
    text = "pier " * (OCCURRENCES_COUNTED + 50)
    found = bind("pier", text)
    assert found is not None
    assert occurrences("pier", text, found) == OCCURRENCES_COUNTED
    fuzzy_text = "The pier is not closed in the winter months of 2019."
    quote = "The pier isn't closed in the wintre months of 2019."
    fuzzy = bind(quote, fuzzy_text)
    assert fuzzy is not None and fuzzy.match == "fuzzy"
    assert occurrences(quote, fuzzy_text, fuzzy) is None


# --- 4. an ellipsis does not stand for left-out words ------------------------------------


def test_a_quote_joining_two_parts_with_an_ellipsis_does_not_bind() -> None:
    text = "The pier was closed in 2019. The harbour council reopened it in 2021 after repairs."
    assert bind("The pier was closed in 2019\u2026reopened it in 2021.", text) is None
    assert bind("The pier was closed in 2019 ... reopened it in 2021.", text) is None
