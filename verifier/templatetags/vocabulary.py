"""Template filters over the one vocabulary (:mod:`verifier.vocabulary`), built in to
every template (``TEMPLATES[...]["OPTIONS"]["builtins"]``).

``{{ claim.state|label:"state" }}`` → "Supported"; ``{{ code|explain:"reason" }}`` → its
one line; ``{{ verdict.confidence|percent }}`` → "84 %"; ``{% state_badge claim.state %}``
→ the state's badge with its label, its code for the stylesheet and its explanation as a
tooltip.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from verifier import vocabulary

register = template.Library()


@register.filter
def label(code: object, kind: str) -> str:
    return vocabulary.label(kind, code)


@register.filter
def explain(code: object, kind: str) -> str:
    return vocabulary.explanation(kind, code)


@register.filter
def percent(value: float | None) -> str:
    return vocabulary.confidence_percent(value)


@register.filter
def answer_percent(verdict: Any, label_code: str = "") -> str:
    """A verdict's confidence as a percentage, "–" for a verdict that gave no answer:
    ``{{ v|answer_percent }}`` (an object with ``label`` and ``confidence``)."""
    code = label_code or getattr(verdict, "label", None)
    value = vocabulary.verdict_confidence(code, getattr(verdict, "confidence", None))
    return vocabulary.confidence_percent(value)


@register.simple_tag
def state_badge(state: str) -> SafeString:
    found = vocabulary.term("state", state)
    return format_html(
        '<span class="state state-{}" title="{}">{}</span>',
        state,
        found.explanation,
        found.label,
    )
