"""Adaptive trust (seed 001, ``AdaptiveTrustPolicy.compute_adaptive_trust``).

Each evidence item carries the judge's stance toward each subclaim (never lexical
overlap alone). coverage = Σ subclaim weights / number of subclaims; diversity over
distinct source domains; agreement = share of evidence not contradicting.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from verifier.claim_worker import config as c

# A subclaim is strongly covered when some item takes a stance on it (entailed or
# contradicted) with at least this judge confidence and this ranking relevance;
# weakly (weight 0.5) when an item takes a stance with less, or abstains while very
# relevant.
STRONG_STANCE_CONFIDENCE = 0.60
STRONG_STANCE_RELEVANCE = 0.30
WEAK_ABSTAIN_RELEVANCE = 0.55
WEAK_WEIGHT = 0.5
DIVERSITY_SATURATION = 3  # distinct domains for diversity 1.0
# Confidence mode: "lowers several thresholds and minimum evidence count".
CONFIDENCE_MODE_COVERAGE_HIGH = 0.50
CONFIDENCE_MODE_COVERAGE_MEDIUM = 0.30
CONFIDENCE_MODE_DIVERSITY_HIGH = 0.60
CONFIDENCE_MODE_AGREEMENT_HIGH = 0.70
CONFIDENCE_MODE_MIN_EVIDENCE = 2
# Low-count override: fewer items than the minimum, but very diverse and relevant.
LOW_COUNT_MIN_DIVERSITY = 0.90
LOW_COUNT_MIN_RELEVANCE = 0.75
# Adaptive override (no contradicted subclaim and one of these).
ADAPTIVE_MIN_COVERAGE = 0.25
ADAPTIVE_MIN_DIVERSITY = 0.75
ADAPTIVE_MIN_STRONG_COVERED = 1
ADAPTIVE_MIN_RELEVANCE = 0.55
# Verdict state from trust_post.
CONFIRMED_AT = 0.8
PROVISIONAL_AT = 0.6
# Weak-relevance guard: a pass with all three this weak is insufficiency after all.
WEAK_GUARD_TRUST_POST = 0.35
WEAK_GUARD_SEMANTIC = 0.45
WEAK_GUARD_TOP_TRUST = 0.50


@dataclass(frozen=True)
class Stance:
    label: str  # entailed | contradicted | abstained | coverage_gap (the judge's)
    confidence: float
    # the judge's note; for a coverage gap, why it gave no answer ("transport_error: …")
    note: str = field(default="", compare=False)


@dataclass(frozen=True)
class TrustEvidence:
    key: str
    domain: str
    relevance: float  # the hybrid ranking score
    trust: float  # the item's trust in [0, 1]
    semantic: float = 0.0  # raw semantic similarity
    stances: Mapping[int, Stance] = field(default_factory=dict)  # subclaim index → stance

    @property
    def contradicts(self) -> bool:
        return any(s.label == "contradicted" for s in self.stances.values())


@dataclass(frozen=True)
class SubclaimCoverage:
    index: int
    weight: float
    strong: bool
    contradicted: bool
    best_trust: float


@dataclass(frozen=True)
class Thresholds:
    coverage_high: float
    coverage_medium: float
    diversity_high: float
    agreement_high: float
    min_evidence: int


NORMAL = Thresholds(
    c.COVERAGE_THRESHOLD_HIGH,
    c.COVERAGE_THRESHOLD_MEDIUM,
    c.DIVERSITY_THRESHOLD_HIGH,
    c.AGREEMENT_THRESHOLD_HIGH,
    c.MIN_EVIDENCE_COUNT,
)
CONFIDENCE_MODE = Thresholds(
    CONFIDENCE_MODE_COVERAGE_HIGH,
    CONFIDENCE_MODE_COVERAGE_MEDIUM,
    CONFIDENCE_MODE_DIVERSITY_HIGH,
    CONFIDENCE_MODE_AGREEMENT_HIGH,
    CONFIDENCE_MODE_MIN_EVIDENCE,
)


@dataclass(frozen=True)
class AdaptiveTrust:
    coverage: float
    diversity: float
    agreement: float
    avg_relevance: float
    strong_covered: int
    contradicted_subclaims: int
    evidence_count: int
    sufficient: bool
    route: str  # which gate decided (or why not)
    trust_post: float
    trust_post_fixed: float
    verdict_state: str  # confirmed | provisional | revoked | evidence_insufficiency
    mode: str  # normal | confidence
    details: tuple[SubclaimCoverage, ...] = ()

    @property
    def thresholds(self) -> Thresholds:
        return CONFIDENCE_MODE if self.mode == "confidence" else NORMAL


def compute_subclaim_coverage(
    subclaim_count: int, evidence: Sequence[TrustEvidence]
) -> list[SubclaimCoverage]:
    out = []
    for index in range(subclaim_count):
        weight, strong, contradicted, best = 0.0, False, False, 0.0
        for item in evidence:
            stance = item.stances.get(index)
            if stance is None:
                continue
            takes_side = stance.label in ("entailed", "contradicted")
            if stance.label == "contradicted":
                contradicted = True
            if (
                takes_side
                and stance.confidence >= STRONG_STANCE_CONFIDENCE
                and item.relevance >= STRONG_STANCE_RELEVANCE
            ):
                weight, strong = 1.0, True
            elif takes_side or (
                stance.label == "abstained" and item.relevance >= WEAK_ABSTAIN_RELEVANCE
            ):
                weight = max(weight, WEAK_WEIGHT)
            else:
                continue
            best = max(best, item.trust)
        out.append(SubclaimCoverage(index, weight, strong, contradicted, best))
    return out


def diversity_score(domains: Sequence[str]) -> float:
    distinct = {d for d in domains if d}
    return min(1.0, len(distinct) / DIVERSITY_SATURATION)


def agreement_score(evidence: Sequence[TrustEvidence]) -> float:
    if not evidence:
        return 0.0
    return sum(1 for item in evidence if not item.contradicts) / len(evidence)


def sufficiency(
    *,
    coverage: float,
    diversity: float,
    agreement: float,
    avg_relevance: float,
    strong_covered: int,
    contradicted_subclaims: int,
    evidence_count: int,
    confidence_mode: bool = False,
) -> tuple[bool, str]:
    """(sufficient, route). Routes in the order the seed lists them."""
    t = CONFIDENCE_MODE if confidence_mode else NORMAL
    if evidence_count == 0:
        return False, "no_evidence"
    if (
        evidence_count < t.min_evidence
        and diversity >= LOW_COUNT_MIN_DIVERSITY
        and avg_relevance >= LOW_COUNT_MIN_RELEVANCE
    ):
        return True, "low_count_override"
    if (
        confidence_mode
        and evidence_count >= t.min_evidence
        and coverage >= t.coverage_medium
        and agreement >= t.agreement_high
    ):
        return True, "confidence_mode"
    if contradicted_subclaims == 0 and (
        (coverage >= ADAPTIVE_MIN_COVERAGE and diversity >= ADAPTIVE_MIN_DIVERSITY)
        or strong_covered >= ADAPTIVE_MIN_STRONG_COVERED
        or avg_relevance >= ADAPTIVE_MIN_RELEVANCE
    ):
        return True, "adaptive_override"
    if evidence_count >= t.min_evidence:
        if coverage >= t.coverage_high and agreement >= t.agreement_high:
            return True, "strict_high_coverage"
        if (
            coverage >= t.coverage_medium
            and diversity >= t.diversity_high
            and agreement >= t.agreement_high
        ):
            return True, "strict_medium_coverage"
        return False, "gates_not_met"
    return False, "below_min_evidence"


def trust_post_score(
    details: Sequence[SubclaimCoverage], evidence: Sequence[TrustEvidence], coverage: float
) -> float:
    """mean(best_evidence_trust × weight over covered subclaims) × (0.5 + 0.5·coverage);
    fallback top_trust × coverage; the consistency floor re-applies top_trust × coverage
    when that is higher and no evidence contradicts."""
    if not evidence:
        return 0.0
    top_trust = max(item.trust for item in evidence)
    subclaim_trusts = [d.best_trust * d.weight for d in details if d.weight > 0]
    if subclaim_trusts:
        trust_post = sum(subclaim_trusts) / len(subclaim_trusts) * (0.5 + 0.5 * coverage)
    else:
        trust_post = top_trust * coverage
    if not any(item.contradicts for item in evidence):
        trust_post = max(trust_post, top_trust * coverage)
    return min(1.0, max(0.0, trust_post))


def trust_post_fixed_score(evidence: Sequence[TrustEvidence], top_k: int = 3) -> float:
    """The traditional post-trust score, kept for comparability: the mean trust of the
    top ``top_k`` items × agreement."""
    if not evidence:
        return 0.0
    top = sorted((item.trust for item in evidence), reverse=True)[:top_k]
    return sum(top) / len(top) * agreement_score(evidence)


def verdict_state(sufficient: bool, trust_post: float) -> str:
    if not sufficient:
        return "evidence_insufficiency"
    if trust_post >= CONFIRMED_AT:
        return "confirmed"
    if trust_post >= PROVISIONAL_AT:
        return "provisional"
    return "revoked"


def compute_adaptive_trust(
    subclaim_count: int, evidence: Sequence[TrustEvidence], *, confidence_mode: bool = False
) -> AdaptiveTrust:
    subclaim_count = max(1, subclaim_count)
    details = compute_subclaim_coverage(subclaim_count, evidence)
    coverage = sum(d.weight for d in details) / subclaim_count
    diversity = diversity_score([item.domain for item in evidence])
    agreement = agreement_score(evidence)
    avg_relevance = sum(i.relevance for i in evidence) / len(evidence) if evidence else 0.0
    strong = sum(1 for d in details if d.strong)
    contradicted = sum(1 for d in details if d.contradicted)
    sufficient, route = sufficiency(
        coverage=coverage,
        diversity=diversity,
        agreement=agreement,
        avg_relevance=avg_relevance,
        strong_covered=strong,
        contradicted_subclaims=contradicted,
        evidence_count=len(evidence),
        confidence_mode=confidence_mode,
    )
    trust_post = trust_post_score(details, evidence, coverage)
    if sufficient and weak_relevance(evidence, trust_post):
        sufficient, route = False, "weak_relevance_guard"
    return AdaptiveTrust(
        coverage=coverage,
        diversity=diversity,
        agreement=agreement,
        avg_relevance=avg_relevance,
        strong_covered=strong,
        contradicted_subclaims=contradicted,
        evidence_count=len(evidence),
        sufficient=sufficient,
        route=route,
        trust_post=trust_post,
        trust_post_fixed=trust_post_fixed_score(evidence),
        verdict_state=verdict_state(sufficient, trust_post),
        mode="confidence" if confidence_mode else "normal",
        details=tuple(details),
    )


def weak_relevance(evidence: Sequence[TrustEvidence], trust_post: float) -> bool:
    if not evidence:
        return True
    top_semantic = max(item.semantic for item in evidence)
    top_trust = max(item.trust for item in evidence)
    return (
        trust_post < WEAK_GUARD_TRUST_POST
        and top_semantic < WEAK_GUARD_SEMANTIC
        and top_trust < WEAK_GUARD_TOP_TRUST
    )
