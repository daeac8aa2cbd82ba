"""Hypothesis properties of bind / recheck over mixed-script text."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.verifier.binding.strategies import perturbed, texts, word_texts
from verifier.binding import (
    BoundSpan,
    bind,
    clear_index_cache,
    normalize,
    recheck,
    sha256_hex,
    source_index,
)

property_settings = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def fresh(quote: str, text: str) -> bool:
    found = bind(quote, text)
    assert found is not None
    sha = sha256_hex(text)
    span = BoundSpan(quote, found.start, found.end, found.match, sha)
    return recheck(span, text, sha) == "fresh"


@st.composite
def text_and_slice(draw: st.DrawFn) -> tuple[str, int, int]:
    text = draw(texts)
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return text, start, end


@property_settings
@given(text_and_slice())
def test_a_substring_binds_exact_at_its_first_occurrence(case: tuple[str, int, int]) -> None:
    text, i, j = case
    quote = text[i:j]
    assume(not quote.isspace())
    found = bind(quote, text)
    assert found is not None
    assert found.match == "exact"
    assert found.score == 1.0
    assert text[found.start : found.end] == quote
    assert found.start == text.find(quote)
    assert fresh(quote, text)


@property_settings
@given(st.data(), text_and_slice())
def test_a_perturbed_substring_binds_normalized(
    data: st.DataObject, case: tuple[str, int, int]
) -> None:
    text, i, j = case
    quote = data.draw(perturbed(text[i:j]))
    assume(normalize(quote))
    found = bind(quote, text)
    assert found is not None
    assert found.match in ("exact", "normalized")
    assert normalize(text[found.start : found.end]) == normalize(quote)
    assert fresh(quote, text)


@property_settings
@given(st.data(), word_texts)
def test_a_perturbed_word_run_binds_normalized(data: st.DataObject, text: str) -> None:
    words = text.split(" ")
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i + 1, len(words)))
    quote = data.draw(perturbed(" ".join(words[i:j])))
    found = bind(quote, text)
    assert found is not None
    assert found.match in ("exact", "normalized")
    assert normalize(text[found.start : found.end]) == normalize(quote)


@property_settings
@given(texts, texts)
def test_offsets_are_always_in_range_and_fresh(quote: str, text: str) -> None:
    found = bind(quote, text)
    if found is not None:
        assert 0 <= found.start < found.end <= len(text)
        assert 0.0 <= found.score <= 1.0
        assert fresh(quote, text)


@property_settings
@given(word_texts, word_texts)
def test_word_quotes_bind_in_range_including_fuzzy(quote: str, text: str) -> None:
    found = bind(quote, text, fuzzy_floor=0.5)
    if found is not None:
        assert 0 <= found.start < found.end <= len(text)
        if found.match == "fuzzy":
            assert 0.5 <= found.score <= 1.0


@property_settings
@given(texts, texts)
def test_binding_is_deterministic(quote: str, text: str) -> None:
    first = bind(quote, text)
    clear_index_cache()
    assert bind(quote, text) == first
    assert bind(quote, text, index=source_index(text)) == first


ABSENT = ["q", "7", "中", "א", "😀"]


@property_settings
@given(st.data(), texts, st.sampled_from(ABSENT))
def test_a_quote_with_a_char_absent_from_the_text_never_binds_exactly_or_normalized(
    data: st.DataObject, text: str, absent: str
) -> None:
    assume(absent not in text and absent not in normalize(text))
    prefix = data.draw(texts)
    suffix = data.draw(texts)
    found = bind(prefix + absent + suffix, text)
    assert found is None or found.match == "fuzzy"
