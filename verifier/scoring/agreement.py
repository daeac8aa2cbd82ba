"""Agreement between two raters of the same claims: Cohen's κ with its counts.

A rater's answer is a category (``supported``, ``contradicted``, a reviewer's ``not stated``;
a category only one rater gives is simply never agreed on); κ corrects the share of
claims they agree on for the agreement their own answer rates would give by chance:
κ = (p_o − p_e) / (1 − p_e). It is undefined (None) without pairs, or when chance alone
agrees on everything (both raters gave one and the same answer throughout). Pure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Agreement:
    pairs: int
    agreed: int
    kappa: float | None


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> Agreement:
    """Cohen's κ of (first rater's answer, second rater's answer) pairs."""
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return Agreement(0, 0, None)
    agreed = sum(a == b for a, b in pairs)
    first = Counter(a for a, _ in pairs)
    second = Counter(b for _, b in pairs)
    observed = agreed / n
    expected = sum(first[c] * second[c] for c in first.keys() | second.keys()) / (n * n)
    if expected >= 1.0:
        return Agreement(n, agreed, None)
    return Agreement(n, agreed, round((observed - expected) / (1.0 - expected), 4))
