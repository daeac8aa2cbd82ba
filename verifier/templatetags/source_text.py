"""Source text as the browser must keep it, character for character."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def cr_split(text: str) -> list[str]:
    """``text`` cut at each carriage return, for a template that writes every piece
    autoescaped and the template's own ``&#13;`` between them (``{% for piece in
    seg.text|cr_split %}{% if not forloop.first %}&#13;{% endif %}{{ piece }}{% endfor %}``).

    An HTML parser turns a literal CR (and CR LF) into LF, so a source with Windows line
    ends would lose a character per line in the page: the offsets a reviewer's selection
    is counted in (``static/js/review.js``) would drift from the stored text's, and a span
    an auditor copies out of the page would not hash to the recorded SHA-256. The
    character reference survives the parser; the source text itself is never marked
    safe."""
    return str(text).split("\r")
