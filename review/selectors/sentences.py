"""The sentences of the source window a review item shows, for selecting a span from
the keyboard (``static/js/review.js``: ↓ / ↑ step a sentence at a time, Shift extends).

The sentences are the text layer's (``verifier.text.sentences.sentence_spans``), so the
keyboard steps over the same sentences the extractors and the judge read; the browser
only walks the offsets it is given."""

from __future__ import annotations

from typing import TYPE_CHECKING

from verifier.text.sentences import sentence_spans

if TYPE_CHECKING:
    from review.selectors.item import ReviewItem


def review_item_sentence_stops(item: ReviewItem) -> str:
    """The sentences of the item's source window as ``"start-end"`` pairs of code-point
    offsets into the version's text (what the mouse path sends), space-separated, in
    reading order; "" without a version. A sentence the window cuts is given as far as
    the window shows it."""
    if item.version is None:
        return ""
    start, end = item.window
    window = item.version.text[start:end]
    return " ".join(f"{start + s}-{start + e}" for s, e in sentence_spans(window))
