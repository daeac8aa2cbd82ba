"""Source text as the browser must keep it, character for character."""

from __future__ import annotations

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def exact_text(text: str) -> SafeString:
    """``text`` escaped, with every carriage return written as ``&#13;``. An HTML parser
    turns a literal CR (and CR LF) into LF, so a source with Windows line ends would lose
    a character per line in the page: the offsets a reviewer's selection is counted in
    (``static/js/review.js``) would drift from the stored text's, and a span an auditor
    copies out of the page would not hash to the recorded SHA-256."""
    return mark_safe(str(conditional_escape(text)).replace("\r", "&#13;"))
