"""``quote_elision``: the ellipsis a quote leaves words out with, outside numbers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.binding.elision import quote_elision

MARKERS = ["…", "...", "....", ". . .", "[…]", "[...]", "[ … ]", "(...)", "(…)"]


@pytest.mark.parametrize("marker", MARKERS)
def test_a_marker_between_words_joins_passages(marker):
    quote = f"A military helicopter {marker} crashed Friday night"
    found = quote_elision(quote)
    assert found is not None and found.joins
    assert found.marker == marker.strip()
    assert quote[found.start : found.end] == found.marker


@pytest.mark.parametrize(
    "quote",
    [
        "The pier is 300 metres long.",
        "It cost 2.5 million in 1901.",
        "Pages 1...3 and 2…5 of the report.",
        "See section 4.2.1.",
        "Two dots.. are not an ellipsis",
    ],
)
def test_no_marker_outside_numbers_is_none(quote):
    assert quote_elision(quote) is None


def test_a_marker_that_opens_or_ends_the_quote_joins_nothing():
    opening = quote_elision("… crashed Friday night")
    ending = quote_elision("crashed Friday night [...]")
    assert opening is not None and not opening.joins and opening.start == 0
    assert ending is not None and not ending.joins and ending.marker == "[...]"


def test_a_joining_marker_is_found_after_an_opening_one():
    found = quote_elision("... X said [...] that Y")
    assert found is not None and found.joins and found.marker == "[...]"


def test_a_marker_beside_one_digit_only_is_an_elision():
    found = quote_elision("died in 1999 … the town rebuilt")
    assert found is not None and found.joins


words = st.text(alphabet=st.characters(categories=("L",)), min_size=1, max_size=12)
digits = st.integers(min_value=0, max_value=10**6)


@given(left=words, right=words, marker=st.sampled_from(MARKERS), pad=st.sampled_from(["", " "]))
def test_any_marker_between_words_is_found_and_joins(left, right, marker, pad):
    quote = f"{left}{pad}{marker}{pad}{right}"
    found = quote_elision(quote)
    assert found is not None and found.joins
    assert quote[found.start : found.end] == found.marker


@given(a=digits, b=digits, dots=st.sampled_from(["...", "…", "."]))
def test_dots_between_digits_are_never_an_elision(a, b, dots):
    assert quote_elision(f"from {a}{dots}{b} units") is None


@given(text=st.text(alphabet=st.characters(blacklist_characters=".…"), max_size=60))
def test_a_quote_without_dots_has_no_elision(text):
    assert quote_elision(text) is None
