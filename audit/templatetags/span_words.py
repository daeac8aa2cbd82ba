"""``{{ text|span_ends }}``: the first and last words of a highlighted span
(:func:`audit.highlighting.span_ends`), for the words that tell a screen-reader user
where a highlight starts and ends, outside the quoted text."""

from __future__ import annotations

from django import template

from audit.highlighting import SpanEnds
from audit.highlighting import span_ends as _span_ends

register = template.Library()


@register.filter
def span_ends(text: str) -> SpanEnds:
    return _span_ends(str(text))
