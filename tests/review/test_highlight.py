"""The item pane's source window marks the bound span (segments from audit/highlighting)."""

from __future__ import annotations

from audit.highlighting import WINDOW_CHARS
from review.selectors.item import review_item_detail
from tests.factories import make_binding, make_claim, make_source


def _marked(item) -> list[tuple[str, bool]]:
    return [(segment.text, segment.highlighted) for segment in item.segments]


def test_the_bound_span_is_the_one_highlighted_segment(workspace, reviewer):
    text = "a😀b e\u0301 <x> and the rest"
    claim = make_claim(make_source(workspace, text=text), "A claim.")
    make_binding(claim, "😀b e\u0301")
    item = review_item_detail(claim=claim, reviewer=reviewer)
    assert _marked(item) == [("a", False), ("😀b e\u0301", True), (" <x> and the rest", False)]


def test_a_window_that_cuts_the_span_shows_it_unmarked(workspace, reviewer):
    quote = "the bound sentence"
    text = "x" * WINDOW_CHARS + quote + "y" * 100
    claim = make_claim(make_source(workspace, text=text), "A claim.")
    binding = make_binding(claim, quote)
    whole = review_item_detail(claim=claim, reviewer=reviewer)
    assert [s for s, marked in _marked(whole) if marked] == [quote]
    for at in (0, binding.start + 3):  # before the span; starting inside it
        item = review_item_detail(claim=claim, reviewer=reviewer, at=at)
        start, end = item.window
        assert _marked(item) == [(text[start:end], False)]
