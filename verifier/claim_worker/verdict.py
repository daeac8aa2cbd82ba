"""Verdict generation (seed 001, ``verdict_generator.py``): claim breakdown statuses,
truthfulness, evidence quality, confidence with its caps, and the reconciliation that
never trusts a proposed verdict alone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.claim_worker import config as c
from verifier.claim_worker.config import WorkerTuning

VERDICTS = ("TRUE", "FALSE", "PARTIALLY_TRUE", "UNVERIFIABLE")
RESOLVED_VALID = frozenset({"STRONGLY_VALID", "VALID"})
CONTRADICTING = frozenset({"INVALID", "PARTIALLY_INVALID"})

# Segment status from the judge's stances on one subclaim.
STRONG_ENTAIL_CONFIDENCE = 0.85
STRONG_ENTAIL_ITEMS = 2
# Truth-score penalties and guards.
CONTRADICT_PENALTY = 0.30
UNRESOLVED_PENALTY = 0.10
UNRESOLVED_SUPPORT_CAP = 0.90  # support-only claims with unresolved parts stay below this
STRONG_TRUE_LIFT = 0.98  # fully resolved strong TRUE is lifted to at least this
PURE_CONTRADICTION_MAX = 0.05  # all-contradicted FALSE is forced at most this
# Pipeline-level truthfulness guardrails (percent).
ABSOLUTE_TRUE_TRUTH_CAP = 85.0
# Confidence.
CONFIDENCE_CAP = 0.95
COVERAGE_FLOOR_AT = 0.8
COVERAGE_FLOOR_FACTOR = 0.75
UNRESOLVED_CONFIDENCE_CAP = 0.85
UNVERIFIABLE_HARD_CAP = 0.35
UNVERIFIABLE_HARD_CAP_COMPARATIVE = 0.45
# Weak/mixed band: support and contradiction this close make the verdict UNVERIFIABLE.
MIXED_BAND = 0.15


@dataclass(frozen=True)
class SegmentSignal:
    """The judge's stances on one subclaim, over the admissible evidence."""

    text: str
    entail_count: int = 0
    contradict_count: int = 0
    best_entail: float = 0.0
    best_contradict: float = 0.0


def segment_status(seg: SegmentSignal) -> str:
    if seg.entail_count and seg.contradict_count:
        return "PARTIALLY_VALID" if seg.best_entail >= seg.best_contradict else "PARTIALLY_INVALID"
    if seg.entail_count:
        strong = (
            seg.entail_count >= STRONG_ENTAIL_ITEMS or seg.best_entail >= STRONG_ENTAIL_CONFIDENCE
        )
        return "STRONGLY_VALID" if strong else "VALID"
    if seg.contradict_count:
        return "INVALID"
    return "UNKNOWN"


def truth_score(statuses: Sequence[str]) -> float:
    """The status-driven truth score in [0, 1] (before pipeline caps)."""
    if not statuses:
        return c.STATUS_WEIGHTS["UNKNOWN"]
    n = len(statuses)
    base = sum(c.STATUS_WEIGHTS[s] for s in statuses) / n
    contradict_ratio = sum(1 for s in statuses if s in CONTRADICTING) / n
    unresolved_ratio = sum(1 for s in statuses if s == "UNKNOWN") / n
    score = base - CONTRADICT_PENALTY * contradict_ratio - UNRESOLVED_PENALTY * unresolved_ratio
    supported = any(s in RESOLVED_VALID or s == "PARTIALLY_VALID" for s in statuses)
    if unresolved_ratio > 0 and contradict_ratio == 0 and supported:
        score = min(score, UNRESOLVED_SUPPORT_CAP)
    if all(s in RESOLVED_VALID for s in statuses):
        score = max(score, STRONG_TRUE_LIFT)
    if all(s == "INVALID" for s in statuses):
        score = min(score, PURE_CONTRADICTION_MAX)
    return min(1.0, max(0.0, score))


def diversity_ceiling_percent(diversity: float) -> float:
    return (0.85 + 0.10 * diversity) * 100


def numeric_unsupported(verdict: str, numeric_support: float | None) -> bool:
    """The numeric path: a claim stating numbers (``numeric_support`` is not None: the
    share of its numbers that some supporting item states) judged true or partly true
    while a number of it is stated by no supporting item."""
    return (
        numeric_support is not None
        and numeric_support < 1.0
        and verdict in ("TRUE", "PARTIALLY_TRUE")
    )


def truthfulness_percent(
    statuses: Sequence[str],
    *,
    diversity: float,
    verdict: str,
    absolute: bool,
    tuning: WorkerTuning,
    numeric_support: float | None = None,
) -> float:
    """The status-driven truth score, then the pipeline-level caps and overrides in the
    seed's order: diversity ceiling, numeric override path, UNVERIFIABLE and
    absolute-quantifier guardrails."""
    percent = truth_score(statuses) * 100
    percent = min(percent, diversity_ceiling_percent(diversity))
    if numeric_unsupported(verdict, numeric_support):
        # A number no supporting item states is not near-true: at most where an
        # UNVERIFIABLE claim may stand.
        percent = min(percent, tuning.UNVERIFIABLE_CONFIDENCE_CAP * 100)
    if verdict == "UNVERIFIABLE":
        # Unverifiable is neither near-true nor near-false.
        cap = tuning.UNVERIFIABLE_CONFIDENCE_CAP * 100
        percent = min(max(percent, 100 - cap), cap)
    if absolute and verdict == "TRUE" and not all(s == "STRONGLY_VALID" for s in statuses):
        percent = min(percent, ABSOLUTE_TRUE_TRUTH_CAP)
    return round(percent, 2)


@dataclass(frozen=True)
class SegmentEvidence:
    """The best evidence item for a segment, as ``evidence_quality`` reads it."""

    semantic: float
    kg: float
    anchor_overlap: float
    overlap_ratio: float
    credibility: float
    contradicted: bool = False
    uncertain_or_reporting: bool = False


SEGMENT_CONTRADICTION_FACTOR = 0.5
SEGMENT_STYLE_PENALTY = 0.12


def segment_support(ev: SegmentEvidence | None) -> float:
    if ev is None:
        return 0.0
    rel = 0.7 * ev.semantic + 0.3 * ev.kg
    support = (
        0.70 * rel + 0.15 * ev.anchor_overlap + 0.10 * ev.overlap_ratio + 0.05 * ev.credibility
    )
    if ev.contradicted:
        support *= SEGMENT_CONTRADICTION_FACTOR
    if ev.uncertain_or_reporting:
        support -= SEGMENT_STYLE_PENALTY
    return min(1.0, max(0.0, support))


def evidence_quality_percent(
    segments: Sequence[SegmentEvidence | None], *, diversity: float
) -> float:
    if not segments:
        return 0.0
    avg = sum(segment_support(s) for s in segments) / len(segments)
    quality = avg * (0.85 + 0.15 * diversity)
    quality = min(quality, 0.85 + 0.10 * diversity)
    return round(quality * 100, 2)


@dataclass(frozen=True)
class ConfidenceInputs:
    truthfulness: float  # 0..1
    coverage: float
    agreement: float
    diversity: float
    trust_post: float
    verdict: str
    statuses: tuple[str, ...]
    policy_sufficient: bool
    comparative: bool
    strictness: float
    evidence_count: int
    # share of the claim's numbers some supporting item states; None: no numbers
    numeric_support: float | None = None
    # the verdict is FALSE because strong contradiction votes forced it
    strong_contradiction: bool = False


def weighted_confidence(x: ConfidenceInputs) -> float:
    """The seed's composite: .30·truthfulness + .25·coverage + .20·agreement +
    .15·diversity + .10·adaptive trust_post."""
    return (
        0.30 * x.truthfulness
        + 0.25 * x.coverage
        + 0.20 * x.agreement
        + 0.15 * x.diversity
        + 0.10 * x.trust_post
    )


def coverage_floor(conf: float, x: ConfidenceInputs) -> float:
    """If coverage ≥ 0.8, confidence ≥ truthfulness × 0.75."""
    if x.coverage >= COVERAGE_FLOOR_AT:
        return max(conf, x.truthfulness * COVERAGE_FLOOR_FACTOR)
    return conf


def cap_confidence_with_contract(conf: float, x: ConfidenceInputs, tuning: WorkerTuning) -> float:
    """Unresolved segments, policy insufficiency and UNVERIFIABLE lower the cap;
    a contradiction-only fully resolved FALSE gets a floor."""
    if any(s == "UNKNOWN" for s in x.statuses):
        conf = min(conf, UNRESOLVED_CONFIDENCE_CAP)
    if not x.policy_sufficient:
        conf = min(conf, tuning.UNVERIFIABLE_CONFIDENCE_CAP)
    if x.verdict == "UNVERIFIABLE":
        conf = min(
            conf, UNVERIFIABLE_HARD_CAP_COMPARATIVE if x.comparative else UNVERIFIABLE_HARD_CAP
        )
    if x.verdict == "FALSE" and x.statuses and all(s == "INVALID" for s in x.statuses):
        conf = max(conf, tuning.FALSE_VERDICT_MIN_CONFIDENCE)
    return conf


def strictness_caps(conf: float, x: ConfidenceInputs, tuning: WorkerTuning) -> float:
    """The seed's strictness confidence-cap controls (not applied to UNVERIFIABLE, whose
    hard cap is lower, nor to FALSE's floor)."""
    if x.verdict in ("UNVERIFIABLE",):
        return conf
    floor = tuning.FALSE_VERDICT_MIN_CONFIDENCE if x.verdict == "FALSE" else 0.0
    if (
        x.evidence_count < tuning.STRICTNESS_MIN_EVIDENCE_COUNT
        and x.strictness >= tuning.STRICTNESS_MEDIUM_THRESHOLD
    ):
        conf = min(conf, tuning.STRICTNESS_LOW_EVIDENCE_CONFIDENCE_CAP)
    if x.agreement < tuning.STRICTNESS_AGREEMENT_MIN:
        conf = min(conf, tuning.STRICTNESS_LOW_AGREEMENT_CONFIDENCE_CAP)
    if (
        x.strictness >= tuning.STRICTNESS_HIGH_THRESHOLD
        and x.diversity < tuning.STRICTNESS_DIVERSITY_MID_THRESHOLD
    ):
        conf = min(conf, tuning.STRICTNESS_HIGH_CLAIM_LOW_DIVERSITY_CAP)
    if x.diversity < tuning.STRICTNESS_DIVERSITY_LOW_THRESHOLD:
        conf = min(conf, tuning.DIVERSITY_CONFIDENCE_CAP_LOW)
    elif x.diversity < tuning.STRICTNESS_DIVERSITY_MID_THRESHOLD:
        conf = min(conf, tuning.DIVERSITY_CONFIDENCE_CAP_MID)
    return max(conf, floor)


def hard_overrides(conf: float, x: ConfidenceInputs, tuning: WorkerTuning) -> float:
    """The last word, after the contract cap: a numeric gate (a number no supporting
    item states: at most ``UNVERIFIABLE_CONFIDENCE_CAP``), the strong-contradiction
    votes (a FALSE they forced: at least ``FALSE_VERDICT_MIN_CONFIDENCE``) and the
    UNVERIFIABLE lock (at most 0.35, 0.45 for a comparative claim, whatever came
    before)."""
    if numeric_unsupported(x.verdict, x.numeric_support):
        conf = min(conf, tuning.UNVERIFIABLE_CONFIDENCE_CAP)
    if x.verdict == "FALSE" and x.strong_contradiction:
        conf = max(conf, tuning.FALSE_VERDICT_MIN_CONFIDENCE)
    if x.verdict == "UNVERIFIABLE":
        conf = min(
            conf, UNVERIFIABLE_HARD_CAP_COMPARATIVE if x.comparative else UNVERIFIABLE_HARD_CAP
        )
    return conf


def final_confidence(x: ConfidenceInputs, tuning: WorkerTuning) -> float:
    """In the seed's order: the composite, capped at 0.95 and by the confidence-cap
    controls (``strictness_caps``: our reading puts them with the cap, so the coverage
    floor that follows is never undercut); if coverage ≥ 0.8, at least truthfulness ×
    0.75; the contract cap; the hard overrides."""
    conf = min(weighted_confidence(x), CONFIDENCE_CAP)
    conf = strictness_caps(conf, x, tuning)
    conf = coverage_floor(conf, x)
    conf = cap_confidence_with_contract(conf, x, tuning)
    conf = hard_overrides(conf, x, tuning)
    return round(min(1.0, max(0.0, conf)), 4)


@dataclass(frozen=True)
class ReconcileInputs:
    proposed: str  # the verdict the judge's stances propose
    statuses: tuple[str, ...]
    contradict_ratio: float
    best_contradiction: float  # strongest contradicted confidence (0..1)
    best_entailment: float
    coverage: float
    diversity: float
    policy_sufficient: bool
    anchor_match: float  # of the top supporting evidence
    predicate_match: float  # claim overlap of the top supporting evidence
    hedged_share: float  # share of supporting evidence with uncertain/reporting wording
    absolute: bool
    strictness: float


@dataclass(frozen=True)
class Reconciled:
    verdict: str
    reasons: tuple[str, ...]
    strong_contradiction: bool = False  # strong contradiction votes decided FALSE


def proposed_verdict(statuses: Sequence[str]) -> str:
    """What the judge's stances alone would say."""
    if not statuses:
        return "UNVERIFIABLE"
    if all(s in RESOLVED_VALID for s in statuses):
        return "TRUE"
    if all(s in CONTRADICTING for s in statuses) or (
        any(s == "INVALID" for s in statuses) and not any(s in RESOLVED_VALID for s in statuses)
    ):
        return "FALSE"
    if any(s in RESOLVED_VALID or s == "PARTIALLY_VALID" for s in statuses):
        return "PARTIALLY_TRUE"
    return "UNVERIFIABLE"


def reconcile(x: ReconcileInputs, tuning: WorkerTuning) -> Reconciled:
    """Hard guards in order: strong contradiction forces FALSE; weak/mixed bands force
    UNVERIFIABLE; binary verdicts need the stronger gates or become UNVERIFIABLE;
    absolute quantifiers need every part strongly valid."""
    reasons: list[str] = []
    verdict = x.proposed
    strong_refute = (
        x.contradict_ratio >= tuning.CONTRADICT_RATIO_FORCE_FALSE
        and x.best_contradiction >= tuning.CONTRADICTION_THRESHOLD
        and (
            x.coverage >= tuning.REFUTE_COVERAGE_FORCE_FALSE
            or x.diversity >= tuning.REFUTE_DIVERSITY_FORCE_FALSE
        )
    )
    if strong_refute:
        if verdict != "FALSE":
            reasons.append("strong_contradiction_forced_false")
        return Reconciled("FALSE", tuple(reasons), strong_contradiction=True)
    mixed = x.best_entailment and x.best_contradiction
    if mixed and abs(x.best_entailment - x.best_contradiction) < MIXED_BAND:
        return Reconciled("UNVERIFIABLE", ("mixed_signal_band",))
    if verdict == "FALSE":
        # Not refuted strongly enough above: FALSE then needs a confident contradiction
        # of most parts from diverse sources.
        weak_refute = (
            x.best_contradiction < tuning.CONTRADICTION_THRESHOLD
            or x.contradict_ratio < tuning.CONTRADICT_RATIO_FOR_FORCE_FALSE
            or x.diversity < tuning.DIVERSITY_FORCE_FALSE
        )
        if weak_refute:
            return Reconciled("UNVERIFIABLE", ("binary_gate_false_weak",))
        return Reconciled("FALSE", ())
    if verdict == "TRUE":
        if not x.policy_sufficient:
            return Reconciled("UNVERIFIABLE", ("binary_gate_trust_insufficient",))
        if x.anchor_match < tuning.ANCHOR_THRESHOLD:
            return Reconciled("UNVERIFIABLE", ("binary_gate_anchor",))
        if x.predicate_match < tuning.PREDICATE_MATCH_THRESHOLD:
            return Reconciled("UNVERIFIABLE", ("binary_gate_predicate",))
        if x.hedged_share >= tuning.HEDGE_PENALTY_BLOCK_TRUE:
            return Reconciled("UNVERIFIABLE", ("hedged_evidence_blocks_true",))
        if x.absolute and not all(s == "STRONGLY_VALID" for s in x.statuses):
            return Reconciled("UNVERIFIABLE", ("absolute_quantifier_guard",))
        if x.strictness >= tuning.STRICTNESS_VERY_HIGH_THRESHOLD and not all(
            s == "STRONGLY_VALID" for s in x.statuses
        ):
            return Reconciled("UNVERIFIABLE", ("very_strict_claim_needs_strong_support",))
        return Reconciled("TRUE", ())
    if verdict == "PARTIALLY_TRUE" and x.absolute:
        # "All X are Y" partly supported is not partly true: it is not shown.
        return Reconciled("UNVERIFIABLE", ("absolute_quantifier_guard",))
    return Reconciled(verdict, tuple(reasons))
