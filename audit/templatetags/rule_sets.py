"""``{{ rule_set|rule_set_label }}``: the one display name of a rule-set version, a
stored row or a definition ("Delta rules v2", "Core v1 (built-in)"), as
:func:`verifier.selectors.rules.rule_set_label` spells it for every page and message."""

from __future__ import annotations

from django import template

from verifier.models import RuleSet
from verifier.scoring.rulesets import RuleSetDefinition
from verifier.selectors import rules

register = template.Library()


@register.filter
def rule_set_label(subject: RuleSet | RuleSetDefinition) -> str:
    return rules.rule_set_label(subject)
