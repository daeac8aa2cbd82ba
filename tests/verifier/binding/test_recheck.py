"""Example tests for recheck and span_matches."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.binding import BoundSpan, bind, recheck, recheck_span, sha256_hex, span_matches

TEXT = "The committee approved the annual budget after a long debate on Tuesday."
SHA = sha256_hex(TEXT)


def bound(quote: str, text: str = TEXT) -> BoundSpan:
    found = bind(quote, text)
    assert found is not None
    return BoundSpan(quote, found.start, found.end, found.match, sha256_hex(text))


@pytest.mark.parametrize(
    "quote",
    [
        "approved the annual budget",
        "APPROVED  the annual budget",
        "the annual budgett after a long",
    ],
)
def test_a_fresh_binding_rechecks_fresh(quote: str) -> None:
    assert recheck(bound(quote), TEXT, SHA) == "fresh"


def test_editing_one_character_inside_the_span_loses_it() -> None:
    binding = bound("approved the annual budget")
    edited = TEXT[: binding.start + 3] + "X" + TEXT[binding.start + 4 :]
    assert recheck(binding, edited, SHA) == "span_lost"


def test_editing_one_character_inside_a_normalized_span_loses_it() -> None:
    binding = bound("APPROVED the annual budget")
    assert binding.match == "normalized"
    edited = TEXT.replace("annual", "anmual")
    assert recheck(binding, edited, SHA) == "span_lost"


def test_a_different_hash_is_a_mismatch_before_anything_else() -> None:
    binding = bound("approved the annual budget")
    assert recheck(binding, TEXT, sha256_hex(TEXT + " ")) == "hash_mismatch"
    assert recheck(binding, "", "0" * 64) == "hash_mismatch"


@pytest.mark.parametrize(("start", "end"), [(60, 200), (-1, 5), (10, 10), (12, 3), (73, 74)])
def test_offsets_outside_the_text_are_out_of_range(start: int, end: int) -> None:
    binding = BoundSpan("anything", start, end, "exact", SHA)
    assert recheck(binding, TEXT, SHA) == "offsets_out_of_range"


def test_recheck_does_not_rehash_the_text() -> None:
    # The caller vouches for the hash of the current version; a text that does not
    # hash to it is still checked by offsets and span only.
    binding = bound("approved the annual budget")
    assert recheck(binding, TEXT + " appended", SHA) == "fresh"


def test_span_matches_per_match_kind() -> None:
    assert span_matches("a b", "a b", "exact")
    assert not span_matches("a b", "A b", "exact")
    assert span_matches("a \u201cb\u201d", 'A  "B"', "normalized")
    assert not span_matches("a b", "a c", "normalized")
    quote = "the annual budget after a long debate"
    assert span_matches(quote, "the annual budgett after a long debate", "fuzzy")
    assert not span_matches(quote, "an entirely different sentence here", "fuzzy")
    assert not span_matches(
        quote, "the annual budgett after a long debate", "fuzzy", fuzzy_floor=1.0
    )


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list("ab ñ\u00a0Z.")), max_size=30),
    quote=st.text(alphabet=st.sampled_from(list("ab ñZ")), min_size=1, max_size=6),
    start=st.integers(min_value=-3, max_value=35),
    width=st.integers(min_value=-2, max_value=10),
    match=st.sampled_from(["exact", "normalized", "fuzzy"]),
    same_hash=st.booleans(),
)
def test_recheck_span_is_recheck_from_the_slice_alone(text, quote, start, width, match, same_hash):
    digest = sha256_hex(text)
    binding = BoundSpan(
        quote=quote,
        start=start,
        end=start + width,
        match=match,
        source_hash=digest if same_hash else "0" * 64,
    )
    sliced = text[max(start, 0) : max(start + width, 0)] if start >= 0 else ""
    assert recheck_span(binding, span_text=sliced, sha256=digest) == recheck(binding, text, digest)
