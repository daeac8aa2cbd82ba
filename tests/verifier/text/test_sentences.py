"""Example tests for the two sentence splitters."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.text.abbreviations import EXTRACTOR_ABBREVIATIONS
from verifier.text.sentences import (
    ABBREVIATION_WINDOW,
    block_sentence_spans,
    ends_with_abbreviation,
    sentence_around,
    sentence_before,
    sentence_spans,
)


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("   \n ", []),
        ("One. Two! Three? Four", ["One.", "Two!", "Three?", "Four"]),
        ("Dr. Smith arrived. He sat.", ["Dr. Smith arrived.", "He sat."]),
        ("Use a tool, e.g. a hammer. Then stop.", ["Use a tool, e.g. a hammer.", "Then stop."]),
        ("It cost 3.14 dollars. Cheap.", ["It cost 3.14 dollars.", "Cheap."]),
        ("J. R. Tolkien wrote it. Yes.", ["J. R. Tolkien wrote it.", "Yes."]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("She asked \u201cWhy?\u201d and left.", ["She asked \u201cWhy?\u201d and left."]),
        ("Wait... what happened? Nothing.", ["Wait... what happened?", "Nothing."]),
        ("Apples, pears, etc. Then more.", ["Apples, pears, etc.", "Then more."]),
        ("Apples, pears, etc. and more.", ["Apples, pears, etc. and more."]),
        (
            "Heading\n\nFirst para line\ncontinues here.",
            ["Heading", "First para line\ncontinues here."],
        ),
        ("Items:\n- one\n- two", ["Items:", "- one", "- two"]),
        (
            "\u4eca\u5929\u5f88\u597d\u3002\u660e\u5929\u5462\uff1f\u597d",
            ["\u4eca\u5929\u5f88\u597d\u3002", "\u660e\u5929\u5462\uff1f", "\u597d"],
        ),
        (
            "\u0645\u0631\u062d\u0628\u0627\u061f \u0634\u0643\u0631\u0627.",
            ["\u0645\u0631\u062d\u0628\u0627\u061f", "\u0634\u0643\u0631\u0627."],
        ),
        (
            "\u05e9\u05dc\u05d5\u05dd. \u05e2\u05d5\u05dc\u05dd.",
            ["\u05e9\u05dc\u05d5\u05dd.", "\u05e2\u05d5\u05dc\u05dd."],
        ),
        ("The U.S. economy grew. Fine.", ["The U.S. economy grew.", "Fine."]),
        ("He moved to the U.S. Then he left.", ["He moved to the U.S.", "Then he left."]),
    ],
)
def test_sentence_spans(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_spans_are_ordered_trimmed_and_in_range() -> None:
    text = "  A first one.  \n\n  A second one!\tA third  "
    spans = sentence_spans(text)
    assert spans == sorted(spans)
    for start, end in spans:
        assert 0 <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()


def test_sentence_before_a_span():
    text = "Ada wrote to Babbage. She published her notes in 1843. They were reprinted."
    start = text.index("They")
    assert sentence_before(text, start) == "She published her notes in 1843."
    assert sentence_before(text, 0) == ""
    long = "word " * 300 + "ends here. Next one."
    assert sentence_before(long, long.index("Next"), lookback=100) == ""  # only a fragment


def _is_abbreviation_whole_prefix(text: str, end: int) -> bool:
    """The original rule: the regex over the whole prefix."""
    match = re.search(r"([A-Za-z][A-Za-z.]*)\.$", text[:end])
    if not match:
        return False
    word = match.group(1).lower()
    return word in EXTRACTOR_ABBREVIATIONS or len(word) == 1


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab.XeigvsDr ,\n")), min_size=1, max_size=200),
    st.data(),
)
def test_abbreviation_window_agrees_with_the_whole_prefix(text, data):
    text = text + "."
    end = data.draw(st.integers(min_value=1, max_value=len(text)))
    if text[end - 1] != ".":
        end = len(text)
    assert ends_with_abbreviation(text, end) == _is_abbreviation_whole_prefix(text, end)


def test_long_runs_before_a_period_are_no_abbreviation():
    run = "a" * (ABBREVIATION_WINDOW + 5)
    assert not ends_with_abbreviation(f"See {run}.", len(run) + 5)
    assert ends_with_abbreviation("Dr. Smith", 3)
    assert ends_with_abbreviation("J. Smith", 2)


def block_sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in block_sentence_spans(text, 0, len(text))]


def test_block_sentence_spans_follow_one_another_untrimmed() -> None:
    text = "Dr. Smith left. It sold 3.5 million. Then, in 2. 3 more came "
    spans = block_sentence_spans(text, 0, len(text))
    assert block_sentences(text) == [
        "Dr. Smith left.",
        " It sold 3.5 million.",
        " Then, in 2. 3 more came ",
    ]
    assert all(a[1] == b[0] for a, b in pairwise(spans))
    assert block_sentence_spans("One. Two.  ", 5, 11) == [(5, 9)]  # blank tail left out


@pytest.mark.parametrize(
    ("text", "spans", "block"),
    [
        # a closing abbreviation before a capital: ends a sentence for sentence_spans only
        ("Apples, pears, etc. Then more.", 2, 1),
        # months are abbreviations for the extractor only
        ("It opened in Jan. The crowds came.", 2, 1),
        # a lower-case single letter is an initial for the extractor only
        ("Plan b. It worked well.", 2, 1),
        # sentence_spans also breaks at blank lines (the extractor's blocks do that)
        ("A heading\n\nThe body text.", 2, 1),
        # both agree on the shared list
        ("Dr. Smith arrived. He sat, e.g. there.", 2, 2),
    ],
)
def test_the_two_splitters_differ_where_documented(text: str, spans: int, block: int) -> None:
    assert (len(sentences(text)), len(block_sentences(text))) == (spans, block)


SENTENCES = (
    "Antibiotics are ineffective against viruses. It is false that the council approved "
    "the budget. The end."
)


@pytest.mark.parametrize(
    ("quote", "read"),
    [
        ("the council approved the budget", "It is false that the council approved the budget."),
        ("It is false that", "It is false that the council approved the budget."),
        ("The end.", "The end."),
        (
            "viruses. It is false",
            "Antibiotics are ineffective against viruses. It is false that the council "
            "approved the budget.",
        ),
    ],
)
def test_sentence_around_widens_a_span_to_its_whole_sentences(quote: str, read: str) -> None:
    start = SENTENCES.index(quote)
    s, e = sentence_around(SENTENCES, start, start + len(quote))
    assert SENTENCES[s:e] == read


def test_sentence_around_keeps_a_side_whose_sentence_is_out_of_reach() -> None:
    text = "Intro. " + "word " * 400 + "the claim here and more words follow."
    start = text.index("the claim")
    s, e = sentence_around(text, start, start + len("the claim here"), reach=100)
    assert s == start  # the sentence began more than 100 characters before
    assert text[s:e] == "the claim here and more words follow."


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab .!?\n", max_size=80), st.data())
def test_sentence_around_covers_the_span_and_stays_in_the_text(text: str, data) -> None:
    if not text:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    s, e = sentence_around(text, start, end, reach=30)
    assert 0 <= s <= start < end <= e <= len(text)
