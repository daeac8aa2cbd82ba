"""Trust score 0–100 for a graph (one ingest job or a workspace snapshot).

``score = round(clamp(Σ weight × attainment, 0, 100))`` over six factors whose
weights sum to 100. Each attainment is in [0, 1]:

=======================  ======  ===============================================
factor                   weight  attainment
=======================  ======  ===============================================
embedding_coverage       25      embedded_claims / total_claims
verification_coverage    25      verified_claims / total_claims
orphan_rate              15      1 − orphan_claims / total_claims
vector_index             15      1 if the index exists and retrieval uses it,
                                 0.5 if it exists but is unused (a query path
                                 falls back to a scan), 0 if it does not exist
relation_health          10      ½ × density + ½ × balance, where
                                 density = min(1, relations / total_claims) (one
                                 relation per claim on average earns full
                                 marks) and balance = supports / (supports +
                                 contradicts), or 1 when neither kind exists (a
                                 graph dominated by contradictions is unsettled)
issue_penalty            10      max(0, 1 − high_severity_issues / 20)
=======================  ======  ===============================================

Ratios are clamped to [0, 1] (counts taken at slightly different moments can
exceed their total). An empty graph (no claims) earns no trust: every attainment
is 0 and the score is 0. Arithmetic is exact (fractions) and the final rounding is
Python's ``round`` (half to even), so 87.5 -> 88 and 86.5 -> 86.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Final, NamedTuple

TRUST_WEIGHTS: Final[tuple[tuple[str, int], ...]] = (
    ("embedding_coverage", 25),
    ("verification_coverage", 25),
    ("orphan_rate", 15),
    ("vector_index", 15),
    ("relation_health", 10),
    ("issue_penalty", 10),
)
HIGH_SEVERITY_ISSUES_FOR_ZERO: Final = 20
# What each factor is called where people read it (the console's quality page).
TRUST_FACTOR_LABELS: Final[dict[str, str]] = {
    "embedding_coverage": "Claims embedded",
    "verification_coverage": "Claims verified",
    "orphan_rate": "Claims related to another",
    "vector_index": "Vector index in use",
    "relation_health": "Relation health",
    "issue_penalty": "Few high-severity issues",
}


@dataclass(frozen=True)
class TrustInputs:
    total_claims: int
    embedded_claims: int
    # claims with a recorded verdict that is not a coverage gap, nor the abstention
    # recorded for a claim with nothing bound (the judge was not asked)
    verified_claims: int
    orphan_claims: int  # claims with no relation to any other claim
    vector_index_present: bool
    vector_index_used: bool
    relations: int  # all relations between claims, of any type
    supports_relations: int
    contradicts_relations: int
    high_severity_issues: int

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if name.startswith("vector_index"):
                if not isinstance(value, bool):
                    raise ValueError(f"{name} must be a bool, got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


class TrustFactor(NamedTuple):
    name: str
    weight: int
    attainment: float
    points: float


@dataclass(frozen=True)
class TrustScore:
    score: int
    factors: tuple[TrustFactor, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "factors": [f._asdict() for f in self.factors]}


def _clamp(x: Fraction, low: Fraction = Fraction(0), high: Fraction = Fraction(1)) -> Fraction:
    return max(low, min(high, x))


def _ratio(part: int, total: int) -> Fraction:
    return _clamp(Fraction(part, total)) if total else Fraction(0)


def _attainments(inputs: TrustInputs) -> dict[str, Fraction]:
    n = inputs.total_claims
    if n == 0:
        return {name: Fraction(0) for name, _ in TRUST_WEIGHTS}
    if not inputs.vector_index_present:
        index = Fraction(0)
    elif inputs.vector_index_used:
        index = Fraction(1)
    else:
        index = Fraction(1, 2)
    polar = inputs.supports_relations + inputs.contradicts_relations
    balance = _ratio(inputs.supports_relations, polar) if polar else Fraction(1)
    density = _ratio(inputs.relations, n)
    return {
        "embedding_coverage": _ratio(inputs.embedded_claims, n),
        "verification_coverage": _ratio(inputs.verified_claims, n),
        "orphan_rate": 1 - _ratio(inputs.orphan_claims, n),
        "vector_index": index,
        "relation_health": (density + balance) / 2,
        "issue_penalty": _clamp(
            1 - Fraction(inputs.high_severity_issues, HIGH_SEVERITY_ISSUES_FOR_ZERO)
        ),
    }


def trust_score(inputs: TrustInputs) -> TrustScore:
    attainments = _attainments(inputs)
    factors = []
    total = Fraction(0)
    for name, weight in TRUST_WEIGHTS:
        points = weight * attainments[name]
        total += points
        factors.append(TrustFactor(name, weight, float(attainments[name]), float(points)))
    score = round(_clamp(total, Fraction(0), Fraction(100)))
    return TrustScore(score=score, factors=tuple(factors))
