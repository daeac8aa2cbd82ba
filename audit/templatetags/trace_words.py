"""``{{ policy|retrieval_policy_words }}``: a retrieval's verification policy (the
``verification_policy`` its trace records, ``VerificationPolicy.to_dict``) in a few words
for the trace list: the states it serves, by their labels, and what else it asks.
A policy left at its defaults says so, never "custom"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from verifier import vocabulary
from verifier.retrieval_ranking import VerificationPolicy

register = template.Library()


@register.filter
def retrieval_policy_words(policy: Mapping[str, Any]) -> str:
    states = policy.get("include") or []
    parts = ["serves " + ", ".join(vocabulary.label("state", s) for s in states)]
    if policy.get("min_trust_score"):
        parts.append(f"trust score ≥ {policy['min_trust_score']}")
    if policy.get("exclude_flagged") is False:
        parts.append("flagged claims too")
    if policy.get("require_verified"):
        parts.append("verified only")
    words = "; ".join(parts)
    if dict(policy) == VerificationPolicy().to_dict():
        return f"default ({words})"
    return words
