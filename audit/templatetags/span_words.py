"""``{{ text|span_ends }}``: the first and last words of a highlighted span
(:func:`audit.highlighting.span_ends`), for the words that tell a screen-reader user
where a highlight starts and ends, outside the quoted text."""

from __future__ import annotations

from django import template

from audit.highlighting import SpanEnds, cut_text
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
