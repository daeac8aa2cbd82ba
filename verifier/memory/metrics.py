"""Seed-002 metrics: per claim (outcome, claim_type, drift_categories, similarity) and per
agent (drift_rate, support_rate, coverage_rate, each with a 95% Wilson interval, only from
``MIN_CLAIMS_FOR_RATES`` evaluated claims on). Pure Python."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

MIN_CLAIMS_FOR_RATES: Final = 10
Z_95: Final = 1.959963984540054
# The reason an explicit claim was not checked because it is out of scope (its words are
# the addressee's): counted with the implicit and undeclared claims, not evaluated.
OUT_OF_SCOPE: Final = "out_of_scope"

OUTCOMES: Final = (
    "supported:exact",
    "supported:paraphrase",
    "unsupported:drift",
    "unsupported:no_match",
    "inconclusive:insufficient",
    "inconclusive:conflict",
)


def wilson_interval(successes: int, n: int, *, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``successes`` out of ``n`` (``(0, 1)`` when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError("successes must lie in [0, n]")
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Rate:
    value: float
    ci95: tuple[float, float]
    count: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": round(self.value, 4),
            "ci95": [round(self.ci95[0], 4), round(self.ci95[1], 4)],
            "count": self.count,
        }


def _rate(k: int, n: int) -> Rate:
    return Rate(k / n, wilson_interval(k, n), k)


def agent_stats(rows: Iterable[Sequence[Any]]) -> dict[str, Any]:
    """Aggregates over ``(claim_type, outcome, drift_categories, reason)`` rows of one
    agent (the categories may be left out: then only a drift outcome counts as drift; the
    reason too).

    Evaluated claims are the explicit ones (verbatim, summarized) the verifier checked;
    implicit and undeclared claims, and explicit ones out of scope all the same (a "you
    said" claim about the addressee's own words: reason ``out_of_scope``), are counted
    apart as out of scope. Over the evaluated claims, as the seed
    defines them: ``drift_rate`` = claims with drift detected (an ``unsupported:drift``
    outcome, or drift categories on any other outcome: drift found in an incomplete
    transcript or in one of two disagreeing statements), ``support_rate`` = supported
    outcomes, ``coverage_rate`` = claims whose transcript coverage sufficed (every outcome
    except ``inconclusive:insufficient``). Below ``MIN_CLAIMS_FOR_RATES`` the rates are
    ``None`` and ``note`` says why."""
    outcomes: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    by_type: dict[str, int] = {}
    out_of_scope = 0
    drifted = 0
    for row in rows:
        claim_type, outcome = row[0], row[1]
        categories = row[2] if len(row) > 2 else ()
        reason = row[3] if len(row) > 3 else ""
        if claim_type not in ("verbatim", "summarized") or reason == OUT_OF_SCOPE:
            out_of_scope += 1
            continue
        by_type[claim_type] = by_type.get(claim_type, 0) + 1
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if outcome == "unsupported:drift" or categories:
            drifted += 1
    n = sum(by_type.values())
    stats: dict[str, Any] = {
        "evaluated_claims": n,
        "out_of_scope_claims": out_of_scope,
        "claim_types": by_type,
        "outcomes": outcomes,
        "min_claims_for_rates": MIN_CLAIMS_FOR_RATES,
    }
    if n < MIN_CLAIMS_FOR_RATES:
        stats.update(
            drift_rate=None,
            support_rate=None,
            coverage_rate=None,
            note=(
                f"{n} evaluated claim{'s' if n != 1 else ''}; rates need at least "
                f"{MIN_CLAIMS_FOR_RATES}."
            ),
        )
        return stats
    drift = drifted
    support = outcomes["supported:exact"] + outcomes["supported:paraphrase"]
    covered = n - outcomes["inconclusive:insufficient"]
    stats.update(
        drift_rate=_rate(drift, n).as_dict(),
        support_rate=_rate(support, n).as_dict(),
        coverage_rate=_rate(covered, n).as_dict(),
        note="",
    )
    return stats
