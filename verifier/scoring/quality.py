"""Quality report arithmetic for one ingest job, and the G2 gate.

G2: at least 90% of validated claims supported and at most 2% unsupported.
Validated claims are the ones the rule set classified: supported + weak +
unsupported. The gate compares the exact shares (rational arithmetic), never a
rounded percentage, so a graph passes only when it clears the bar as published:

* 180/200 supported = 90% passes; 179/200 = 89.5% fails (it is under 90%).
* 4/200 unsupported = 2.0% passes; 5/200 = 2.5% and 24/1000 = 2.4% fail.

The reported percentages (``ok_pct``, ``weak_pct``, …) are whole numbers for display,
``round(100 * n / total)`` with Python's ``round`` (half to even), so a failing graph
may show "90" supported: its shortfall then states the share it has to two decimals,
never rounded across the bar ("supported 89.5% < 90%", "unsupported 2.01% > 2%").

An empty job (no validated claims) has no percentages (``None``) and G2 was not
measured: ``passed`` is ``None`` (unknown — neither pass nor fail; an empty graph has
not cleared the bar, and has not failed it either) with the shortfall "no validated
claims". Counts the pipeline did not record (coverage gaps, remediation drops) stay
``None`` and are never shown as 0.

A claim's class (:func:`quality_class`) is its rule-set class, never better than its
verification state allows (:data:`STATE_CLASS_CAP`): only a ``supported`` claim can be
classed supported, an ``inferred`` or ``unverified`` one is weak at best, a
``contradicted`` one is unsupported, and an ``excluded`` one (out of active use, counted
as a remediation drop when remediation excluded it) or one not classified yet is not
validated. So no report, preview or list ever counts an unverified claim as supported.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Final

G2_MIN_SUPPORTED_PCT: Final = 90
G2_MAX_UNSUPPORTED_PCT: Final = 2

# The rule-set classes, best first.
QUALITY_CLASSES: Final[tuple[str, ...]] = ("supported", "weak", "unsupported")
# The best class a claim in each verification state can have; None: not validated.
STATE_CLASS_CAP: Final[Mapping[str, str | None]] = MappingProxyType(
    {
        "supported": "supported",
        "inferred": "weak",
        "unverified": "weak",
        "contradicted": "unsupported",
        "excluded": None,
    }
)


def quality_class(state: str, rule_class: str | None) -> str | None:
    """The claim's class for G2 and the rule-set preview: ``rule_class`` (the rule set's
    verdict on its dimension scores), capped by what its ``state`` allows; None when it
    is not validated (excluded, an unknown state, or not classified yet)."""
    cap = STATE_CLASS_CAP.get(state)
    if cap is None or rule_class not in QUALITY_CLASSES:
        return None
    return max(cap, rule_class, key=QUALITY_CLASSES.index)


def quality_class_sources(wanted: str) -> dict[str, tuple[str, ...]]:
    """{state: the rule-set classes that a claim in that state needs to be classed
    ``wanted``}: :func:`quality_class` inverted, for a database filter."""
    out: dict[str, tuple[str, ...]] = {}
    for state in STATE_CLASS_CAP:
        rules = tuple(r for r in QUALITY_CLASSES if quality_class(state, r) == wanted)
        if rules:
            out[state] = rules
    return out


@dataclass(frozen=True)
class QualityCounts:
    supported: int
    weak: int
    unsupported: int
    coverage_gaps: int | None
    remediation_drops: int | None
    bound: int
    unbound: int
    no_evidence: int

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if value is None and name in ("coverage_gaps", "remediation_drops"):
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def percent(part: int, total: int) -> int | None:
    """``round(100 * part / total)`` exactly (half to even); ``None`` when total is 0."""
    if total == 0:
        return None
    return round(Fraction(100 * part, total))


def _share_words(part: int, total: int, *, round_up: bool) -> str:
    """``100 * part / total`` in words for a shortfall: whole when it is whole, else to
    at most two decimals, cut toward the side of the bar it fails on (down for a share
    that is too small, up for one that is too large), so 89.999% never reads "90%"."""
    hundredths = Fraction(10_000 * part, total)
    cut = math.ceil(hundredths) if round_up else math.floor(hundredths)
    whole, rest = divmod(cut, 100)
    return f"{whole}" if rest == 0 else f"{whole}.{rest:02d}".rstrip("0")


@dataclass(frozen=True)
class QualityReport:
    counts: QualityCounts
    total: int
    ok_pct: int | None
    weak_pct: int | None
    unsupported_pct: int | None
    bound_pct: int | None
    g2_passed: bool | None  # None: not measured (nothing validated)
    g2_shortfalls: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            **asdict(self.counts),
            "total": self.total,
            "ok": self.counts.supported,
            "ok_pct": self.ok_pct,
            "weak_pct": self.weak_pct,
            "unsupported_pct": self.unsupported_pct,
            "bound_pct": self.bound_pct,
            "g2": {
                "passed": self.g2_passed,
                "min_supported_pct": G2_MIN_SUPPORTED_PCT,
                "max_unsupported_pct": G2_MAX_UNSUPPORTED_PCT,
                "shortfalls": list(self.g2_shortfalls),
            },
        }


def quality_report(counts: QualityCounts) -> QualityReport:
    total = counts.supported + counts.weak + counts.unsupported
    ok_pct = percent(counts.supported, total)
    unsupported_pct = percent(counts.unsupported, total)
    shortfalls: list[str] = []
    if total == 0:
        shortfalls.append("no validated claims")
    else:
        # Exact shares against the published bar (never a rounded percentage).
        if 100 * counts.supported < G2_MIN_SUPPORTED_PCT * total:
            shown = _share_words(counts.supported, total, round_up=False)
            shortfalls.append(f"supported {shown}% < {G2_MIN_SUPPORTED_PCT}%")
        if 100 * counts.unsupported > G2_MAX_UNSUPPORTED_PCT * total:
            shown = _share_words(counts.unsupported, total, round_up=True)
            shortfalls.append(f"unsupported {shown}% > {G2_MAX_UNSUPPORTED_PCT}%")
    return QualityReport(
        counts=counts,
        total=total,
        ok_pct=ok_pct,
        weak_pct=percent(counts.weak, total),
        unsupported_pct=unsupported_pct,
        bound_pct=percent(counts.bound, counts.bound + counts.unbound),
        g2_passed=None if total == 0 else not shortfalls,
        g2_shortfalls=tuple(shortfalls),
    )
