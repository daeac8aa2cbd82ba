"""``{{ text|span_ends }}``: the first and last words of a highlighted span
(:func:`audit.highlighting.span_ends`), for the words that tell a screen-reader user
where a highlight starts and ends, outside the quoted text."""

from __future__ import annotations

from django import template

from audit.highlighting import SpanEnds, TextPiece, cut_text
from audit.highlighting import shown_pieces as _shown_pieces
from audit.highlighting import span_ends as _span_ends

register = template.Library()


@register.filter
def span_ends(text: str) -> SpanEnds:
    return _span_ends(str(text))


@register.filter
def quote_cut(text: str, limit: int) -> str:
    """``{{ quote|quote_cut:200 }}``: the quote cut short as it is stored, never put in
    its NFC form (:func:`audit.highlighting.cut_text`)."""
    return cut_text(str(text), int(limit))


@register.simple_tag
def shown_pieces(text: str, before: str = "", after: str = "") -> list[TextPiece]:
    """``{% shown_pieces text before after as pieces %}``: the text as the runs a page
    writes, its invisible and reordering characters marked, read with the text around it
    (:func:`audit.highlighting.shown_pieces`; ``audit/partials/exact_text.html`` writes
    them)."""
    return _shown_pieces(str(text), before=str(before or ""), after=str(after or ""))
