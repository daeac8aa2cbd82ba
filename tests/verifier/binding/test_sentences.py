"""Example tests for sentence_spans."""

from __future__ import annotations

import pytest

from verifier.binding import sentence_spans


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
    from verifier.binding.sentences import sentence_before

    text = "Ada wrote to Babbage. She published her notes in 1843. They were reprinted."
    start = text.index("They")
    assert sentence_before(text, start) == "She published her notes in 1843."
    assert sentence_before(text, 0) == ""
    long = "word " * 300 + "ends here. Next one."
    assert sentence_before(long, long.index("Next"), lookback=100) == ""  # only a fragment
