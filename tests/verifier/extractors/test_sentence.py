from __future__ import annotations

import pytest

from verifier.extractors import ExtractedClaim, Extractor, build_extractor
from verifier.extractors.sentence import FAMILY, MODEL_ID, SentenceExtractor

TEXT = """# Climate report

Key findings:
- Global temperatures rose by 1.1 degrees since 1900.
2) Sea levels are rising faster than expected.

Dr. Smith said the trend is clear. Is it reversible? Click the link to read more.
The U.S. emitted 5 billion tons of CO2 in 2020, according to the
agency's annual survey. Too short. What a year!
Methods
Please cite the report when you use these figures.
"""


def texts(text: str) -> list[str]:
    return [c.text for c in SentenceExtractor().extract(text)]


def test_identity_and_registry() -> None:
    extractor = build_extractor({"backend": "sentence"})
    assert isinstance(extractor, SentenceExtractor)
    assert isinstance(extractor, Extractor)
    assert (extractor.model_id, extractor.family) == (MODEL_ID, FAMILY)
    assert build_extractor({}).model_id == MODEL_ID


def test_declarative_sentences_only() -> None:
    assert texts(TEXT) == [
        "Global temperatures rose by 1.1 degrees since 1900.",
        "Sea levels are rising faster than expected.",
        "Dr. Smith said the trend is clear.",
        "The U.S. emitted 5 billion tons of CO2 in 2020, according to the agency's annual survey.",
    ]


def test_quotes_are_verbatim_substrings() -> None:
    claims = SentenceExtractor().extract(TEXT)
    for claim in claims:
        assert claim.quote in TEXT
        assert " ".join(claim.quote.split()) == claim.text
    wrapped = claims[-1].quote
    assert "\n" in wrapped  # the line break inside the sentence is kept in the quote


@pytest.mark.parametrize(
    "text",
    [
        "Is the sky blue today?",
        "Install the package before running the tests.",
        "Results",
        "## Background on the project",
        "Too short.",
        "",
        "   \n\n  ",
    ],
)
def test_non_claims_are_skipped(text: str) -> None:
    assert texts(text) == []


def test_decimal_numbers_and_initials_do_not_split_sentences() -> None:
    text = "J. R. R. Tolkien wrote the novel in 1937. It sold 3.5 million copies by 1960."
    assert texts(text) == [
        "J. R. R. Tolkien wrote the novel in 1937.",
        "It sold 3.5 million copies by 1960.",
    ]


def test_quoted_sentence_end() -> None:
    text = 'She said "the river floods every spring." The town built a levee in 1990.'
    assert texts(text) == [
        'She said "the river floods every spring."',
        "The town built a levee in 1990.",
    ]


def test_extracted_claim_is_a_value() -> None:
    assert ExtractedClaim("a", "b") == ExtractedClaim("a", "b")


def test_a_passage_without_sentence_ends_is_not_one_claim() -> None:
    """A line of 50,000 characters with no full stop was one "claim" (a 2 MB one tied up
    a worker): past the claim limit of every door it is no claim; sentences beside it are."""
    from verifier.extractors.base import MAX_CLAIM_CHARS

    run_on = "alpha beta gamma delta " * 2200
    text = f"The harbour wall was rebuilt in 1998.\n\n{run_on}\n\nThe light was automated in 1987."
    claims = SentenceExtractor().extract(text)
    assert [c.text for c in claims] == [
        "The harbour wall was rebuilt in 1998.",
        "The light was automated in 1987.",
    ]
    longest = "word " * (MAX_CLAIM_CHARS // 5 - 2) + "end."
    assert len(longest) <= MAX_CLAIM_CHARS
    assert [c.quote for c in SentenceExtractor().extract(longest)] == [longest]


@pytest.mark.parametrize(
    "text",
    [
        "\ufeffThe Marrow River delta gains land in wet years. It loses land in dry ones.\n",
        "\ufeff# Delta notes\n\nThe Marrow River delta gains land in wet years.\n",
        "\ufeff- The Marrow River delta gains land in wet years.\n",
    ],
)
def test_a_byte_order_mark_starts_no_claim(text: str) -> None:
    """A UTF-8 file's BOM stays in the text, but no claim's text or quote starts with it;
    the quote sits after it, where ``text.find`` puts it (auditor walk L4)."""
    claims = SentenceExtractor().extract(text)
    assert claims[0].text == "The Marrow River delta gains land in wet years."
    assert claims[0].quote == claims[0].text
    assert all("\ufeff" not in c.text + c.quote for c in claims)
    assert texts(text.lstrip("\ufeff")) == [c.text for c in claims]
