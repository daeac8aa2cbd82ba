"""Hypothesis properties of bind / recheck over mixed-script text."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.verifier.binding.strategies import WORDS, perturbed, texts, word_texts
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
    """A text and a slice of it cut between words: after and before ASCII whitespace
    (or at the text's ends), holding a letter or digit."""
    text = draw(texts)
    cuts = [k for k, ch in enumerate(text) if ch in " \n\t"]
    starts = [0, *(k + 1 for k in cuts)]
    ends = [*cuts, len(text)]
    start = draw(st.sampled_from(starts))
    later = [e for e in ends if e > start]
    assume(later)
    end = draw(st.sampled_from(later))
    assume(any(ch.isalnum() for ch in text[start:end]))
    return text, start, end


@property_settings
@given(text_and_slice())
def test_a_substring_cut_between_words_binds_exact_at_its_first_whole_occurrence(
    case: tuple[str, int, int],
) -> None:
    text, i, j = case
    quote = text[i:j]
    found = bind(quote, text)
    assert found is not None
    assert found.match == "exact"
    assert found.score == 1.0
    assert text[found.start : found.end] == quote
    # the first occurrence on word boundaries: this one, or one before it
    assert text.find(quote) <= found.start <= i
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


# Words of scripts written with spaces between words (``word_texts`` less Chinese, where
# any position between two letters is a word boundary).
SPACED_WORDS = [w for w in WORDS if w != "中文"]
spaced_word_texts = st.lists(st.sampled_from(SPACED_WORDS), min_size=4, max_size=60).map(" ".join)


@property_settings
@given(st.data(), spaced_word_texts, st.sampled_from([0.5, 0.85]))
def test_every_stage_binds_whole_words_only(data: st.DataObject, text: str, floor: float) -> None:
    """Words joined by single spaces ("don't", "co-op" and "naïve" among them): a bound
    span, exact, normalized or fuzzy, starts and ends where a word does."""
    words = text.split(" ")
    i = data.draw(st.integers(0, len(words) - 1))
    j = data.draw(st.integers(i + 1, len(words)))
    piece = " ".join(words[i:j])
    # cut into the middle of the first and last words, or keep them, or mix in others
    quote = data.draw(
        st.sampled_from(
            [piece, piece[1:], piece[:-1], piece[2:-2], data.draw(spaced_word_texts), "t " + piece]
        )
    )
    found = bind(quote, text, fuzzy_floor=floor)
    if found is not None:
        assert found.start == 0 or text[found.start - 1] == " "
        assert found.end == len(text) or text[found.end] == " "


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
