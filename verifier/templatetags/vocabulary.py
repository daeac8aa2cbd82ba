"""Template filters over the one vocabulary (:mod:`verifier.vocabulary`), built in to
every template (``TEMPLATES[...]["OPTIONS"]["builtins"]``).

``{{ claim.state|label:"state" }}`` → "Supported"; ``{{ event.at|utc }}`` → "2026-06-10 12:04
UTC" (every time the console shows says its zone, one way: UTC, whatever zone is
active); ``{{ code|explain:"reason" }}`` → its one line; ``{{ verdict.confidence|percent }}``
→ "84 %"; ``{% state_badge claim.state %}`` → the state's badge with its label, its code
for the stylesheet and its explanation as a tooltip.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from verifier import vocabulary
from verifier.models import ClaimStateChoices
from verifier.states import judge_not_asked
from verifier.time_words import duration_words, utc_words

register = template.Library()


@register.filter
def label(code: object, kind: str) -> str:
    return vocabulary.label(kind, code)


@register.filter
def explain(code: object, kind: str) -> str:
    return vocabulary.explanation(kind, code)


@register.filter
def step_detail_term(value: object, key: object) -> vocabulary.Term | None:
    """The words of a trace step's detail ``value`` recorded under ``key``, where the
    vocabulary has a kind for that key's values and the value is one of its codes; None
    otherwise (the value reads as recorded)."""
    kind = vocabulary.TRACE_STEP_DETAIL_VALUES.get(str(key))
    return vocabulary.KINDS[kind].get(str(value)) if kind else None


@register.filter
def percent(value: float | None) -> str:
    return vocabulary.confidence_percent(value)


def _field(subject: Any, name: str) -> Any:
    return subject.get(name) if isinstance(subject, Mapping) else getattr(subject, name, None)


@register.filter
def answer_percent(verdict: Any, label_code: str = "") -> str:
    """A verdict's confidence as a percentage, "–" for a verdict that gave no answer and
    for a reviewer's decision: ``{{ v|answer_percent }}`` (an object or a mapping with
    ``label`` and ``confidence``, and ``reviewer_id`` for a person's), or
    ``{{ row|answer_percent:row.verdict }}`` where the label has another name."""
    code = label_code or _field(verdict, "label")
    value = vocabulary.verdict_confidence(
        code,
        _field(verdict, "confidence"),
        by_person=_field(verdict, "reviewer_id") is not None,
    )
    return vocabulary.confidence_percent(value)


@register.filter
def not_asked(verdict: Any) -> bool:
    """Whether ``verdict`` is the abstention recorded where nothing is bound (no model
    was asked: ``verifier.states.judge_not_asked``); its judge is then said as
    :data:`verifier.vocabulary.JUDGE_NOT_ASKED` (``{% if v|not_asked %}``)."""
    if _field(verdict, "reviewer_id") is not None:
        return False
    return judge_not_asked(str(_field(verdict, "label") or ""), str(_field(verdict, "note") or ""))


@register.filter
def pack_or_all(domain_pack: str | None) -> str:
    """A domain pack's name, or :data:`verifier.vocabulary.ALL_PACKS` for none."""
    return domain_pack or vocabulary.ALL_PACKS


@register.simple_tag
def judge_not_asked_words() -> str:
    return vocabulary.JUDGE_NOT_ASKED


@register.filter
def utc(value: datetime | None, precision: str = "minutes") -> str:
    """``{{ at|utc }}``, ``{{ at|utc:"seconds" }}``, ``{{ at|utc:"time" }}``:
    :func:`verifier.time_words.utc_words`."""
    return utc_words(value, precision)


@register.filter
def duration(ms: float | None) -> str:
    """``{{ step.ms|duration }}`` → "38 ms", "1.2 s", "6 min 52 s":
    :func:`verifier.time_words.duration_words`."""
    return duration_words(ms)


@register.filter
def in_state_order(counts: Mapping[str, int] | None) -> list[tuple[str, int]]:
    """``{% for state, n in counts|in_state_order %}``: claims by state as the console lists
    them everywhere (``claims_state_counts``): the five states in their one order, 0 for
    a state with none, whatever order or states the counts were stored with (a stored
    report's JSON keeps its own key order)."""
    counts = counts or {}
    return [(state.value, counts.get(state.value, 0)) for state in ClaimStateChoices]


@register.simple_tag
def state_badge(state: str) -> SafeString:
    found = vocabulary.term("state", state)
    return format_html(
        '<span class="state state-{}" title="{}">{}</span>',
        state,
        found.explanation,
        found.label,
    )
