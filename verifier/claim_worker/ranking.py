"""Hybrid ranking of evidence candidates (seed 001, ``hybrid_ranker.py``).

    base = .31·sem_norm + .12·kg_norm + .20·entity_overlap + .15·claim_overlap
           + .05·recency + .17·credibility

``sem_norm``/``kg_norm`` are min-max normalised over the candidate set that survived the
strict filters; recency = 0.5^(days / 365). Then three boosts (their sum at most
``MULTIHOP_KG_HINT_MAX_BOOST`` for a candidate only a multi-hop graph path reached), the
negation-anchor boost (``NEGATION_ANCHOR_BOOST_WEIGHT`` × the claim's anchors found in a
negating candidate, for a negated claim), the multiplicative reductions, the
uncertainty penalty, the 0.2 floor for credible items without a semantic/KG signal, and
a clamp to [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from verifier.claim_worker import config as c
from verifier.claim_worker.config import WorkerTuning
from verifier.claim_worker.text import (
    ClaimFeatures,
    content_tokens,
    entities,
    entity_tokens,
    has_negation,
    has_reporting,
    has_uncertainty,
    numbers,
    recall,
)

# Boosts
KG_OVERLAP_BOOST = 0.05  # × min(1, kg_raw) when kg_raw > 0 and claim_overlap ≥ 0.08
KG_OVERLAP_MIN_CLAIM_OVERLAP = 0.08
ENTITY_KG_BOOST = 0.10  # kg_norm > 0, entity_overlap ≥ 0.34, claim_overlap ≥ 0.10
ENTITY_KG_MIN_ENTITY_OVERLAP = 0.34
ENTITY_KG_MIN_CLAIM_OVERLAP = 0.10
KG_ANCHOR_BOOST = 0.08  # KG candidate, kg_raw ≥ 0.40, anchors pass
KG_ANCHOR_MIN_KG_RAW = 0.40
# Reductions
ANCHOR_WEAK_BELOW = 0.20
ANCHOR_WEAK_KG = 0.30
ANCHOR_WEAK_OTHER = 0.70
BACKFILL_WEAK = 0.85
BACKFILL_WEAK_BELOW_OVERLAP = 0.30
OBJECT_MISMATCH = 0.55
FOCUS_MISMATCH = 0.75
SUBJECT_MISMATCH = 0.60
RELATION_OBJECT_MISMATCH = 0.70
REPORTING_STYLE = 0.65
UNCERTAINTY_PENALTY = 0.12
# Floor
FLOOR_SCORE = 0.2
FLOOR_MIN_CREDIBILITY = 0.9
# Strict candidate filters: a candidate with neither lexical overlap nor a semantic or
# graph signal is dropped before normalisation.
STRICT_MIN_CLAIM_OVERLAP = 0.05
STRICT_MIN_SEMANTIC = 0.35


@dataclass(frozen=True)
class Candidate:
    key: str
    text: str
    sem_raw: float = 0.0  # cosine similarity to the nearest retrieval query
    kg_raw: float = 0.0  # knowledge-graph signal in [0, 1]
    is_kg: bool = False  # reached through the graph (entities / relations)
    credibility: float = 0.5
    days_since_publish: float | None = None
    backfill: bool = False  # lexical backfill rather than vector/graph retrieval
    relation_object: str = ""  # the tail of the KG relation that reached it
    # reached only through a relation of another claim (a multi-hop graph hint), not
    # through the claim's own entities
    multihop: bool = False


@dataclass(frozen=True)
class Ranked:
    candidate: Candidate
    score: float
    base: float
    sem_norm: float
    kg_norm: float
    entity_overlap: float
    claim_overlap: float
    anchor_match: float
    recency: float
    adjustments: tuple[str, ...] = field(default=())

    @property
    def key(self) -> str:
        return self.candidate.key


def recency_boost(days_since_publish: float | None) -> float:
    """0.5^(days / half-life); unknown dates count as neither new nor old (0.5)."""
    if days_since_publish is None:
        return 0.5
    return float(0.5 ** (max(0.0, days_since_publish) / c.RECENCY_HALF_LIFE_DAYS))


def min_max(values: Sequence[float]) -> list[float]:
    """Min-max normalisation; a constant non-zero set maps to 1, an all-zero set to 0."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low <= 1e-12:
        return [1.0 if high > 0 else 0.0 for _ in values]
    return [(v - low) / (high - low) for v in values]


def passes_strict_filter(claim: ClaimFeatures, candidate: Candidate) -> bool:
    overlap = recall(claim.tokens, content_tokens(candidate.text))
    return (
        overlap >= STRICT_MIN_CLAIM_OVERLAP
        or candidate.sem_raw >= STRICT_MIN_SEMANTIC
        or candidate.kg_raw > 0
    )


DEFAULT_TUNING = WorkerTuning()


def _kg_boost(
    candidate: Candidate,
    kg_norm: float,
    claim_overlap: float,
    entity_overlap: float,
    anchor_match: float,
    tuning: WorkerTuning,
    notes: list[str],
) -> float:
    """The graph boosts together (a multi-hop hint's capped); each noted in ``notes``."""
    kg_raw = candidate.kg_raw
    kg_boost = 0.0
    if kg_raw > 0 and claim_overlap >= KG_OVERLAP_MIN_CLAIM_OVERLAP:
        kg_boost += KG_OVERLAP_BOOST * min(1.0, kg_raw)
        notes.append("boost_kg_overlap")
    if (
        kg_norm > 0
        and entity_overlap >= ENTITY_KG_MIN_ENTITY_OVERLAP
        and claim_overlap >= ENTITY_KG_MIN_CLAIM_OVERLAP
    ):
        kg_boost += ENTITY_KG_BOOST
        notes.append("boost_entity_kg")
    if (
        candidate.is_kg
        and kg_raw >= KG_ANCHOR_MIN_KG_RAW
        and anchor_match >= tuning.ANCHOR_THRESHOLD
    ):
        kg_boost += KG_ANCHOR_BOOST
        notes.append("boost_kg_anchor")
    if candidate.multihop and kg_boost > tuning.MULTIHOP_KG_HINT_MAX_BOOST:
        # a multi-hop path is a hint: its graph boosts together are bounded
        kg_boost = tuning.MULTIHOP_KG_HINT_MAX_BOOST
        notes.append("multihop_kg_hint_capped")
    return kg_boost


def _reduced(
    claim: ClaimFeatures,
    candidate: Candidate,
    tokens: frozenset[str],
    claim_overlap: float,
    anchor_match: float,
    score: float,
    notes: list[str],
) -> float:
    """``score`` after the reductions (weak anchor or backfill, mismatches, style); each
    noted in ``notes``."""
    if anchor_match < ANCHOR_WEAK_BELOW:
        score *= ANCHOR_WEAK_KG if candidate.is_kg else ANCHOR_WEAK_OTHER
        notes.append("anchor_weak")
    if candidate.backfill and claim_overlap < BACKFILL_WEAK_BELOW_OVERLAP:
        score *= BACKFILL_WEAK
        notes.append("backfill_weak")
    if object_mismatch(claim, candidate.text):
        score *= OBJECT_MISMATCH
        notes.append("object_mismatch")
    if focus_mismatch(claim, tokens):
        score *= FOCUS_MISMATCH
        notes.append("focus_mismatch")
    if subject_mismatch(claim, tokens, claim_overlap):
        score *= SUBJECT_MISMATCH
        notes.append("subject_mismatch")
    if candidate.is_kg and relation_object_mismatch(claim, candidate.relation_object):
        score *= RELATION_OBJECT_MISMATCH
        notes.append("relation_object_mismatch")
    if not claim.belief and has_reporting(candidate.text):
        score *= REPORTING_STYLE
        notes.append("reporting_style")
    if not claim.uncertain and has_uncertainty(candidate.text):
        score -= UNCERTAINTY_PENALTY
        notes.append("uncertainty")
    return score


def score_candidate(
    claim: ClaimFeatures,
    candidate: Candidate,
    *,
    sem_norm: float,
    kg_norm: float,
    tuning: WorkerTuning = DEFAULT_TUNING,
) -> Ranked:
    tokens = content_tokens(candidate.text)
    claim_overlap = recall(claim.tokens, tokens)
    claim_entity_tokens = entity_tokens(claim.entities)
    entity_overlap = recall(claim_entity_tokens, tokens)
    anchor_match = recall(claim.anchors, tokens | numbers(candidate.text)) if claim.anchors else 1.0
    recency = recency_boost(candidate.days_since_publish)
    base = (
        c.W_SEMANTIC * sem_norm
        + c.W_KG * kg_norm
        + c.W_ENTITY * entity_overlap
        + c.W_CLAIM_OVERLAP * claim_overlap
        + c.W_RECENCY * recency
        + c.W_CREDIBILITY * candidate.credibility
    )
    score = base
    notes: list[str] = []
    score += _kg_boost(
        candidate, kg_norm, claim_overlap, entity_overlap, anchor_match, tuning, notes
    )
    if claim.anchors and has_negation(claim.text) and has_negation(candidate.text):
        # the negated statement about the claim's own anchors (their overlap in [0, 1])
        overlap = anchor_match
        if overlap > 0:
            score += tuning.NEGATION_ANCHOR_BOOST_WEIGHT * overlap
            notes.append("boost_negation_anchor")

    score = _reduced(claim, candidate, tokens, claim_overlap, anchor_match, score, notes)
    if sem_norm == 0 and kg_norm == 0 and candidate.credibility >= FLOOR_MIN_CREDIBILITY:
        if score < FLOOR_SCORE:
            notes.append("floor")
        score = max(score, FLOOR_SCORE)
    score = min(1.0, max(0.0, score))
    return Ranked(
        candidate=candidate,
        score=score,
        base=base,
        sem_norm=sem_norm,
        kg_norm=kg_norm,
        entity_overlap=entity_overlap,
        claim_overlap=claim_overlap,
        anchor_match=anchor_match,
        recency=recency,
        adjustments=tuple(notes),
    )


def object_mismatch(claim: ClaimFeatures, text: str) -> bool:
    """The candidate is about the claim's subject but names a different object: the
    claim's object number is absent while the candidate states other numbers, or its
    object entity is absent while the candidate names other entities."""
    if not claim.object or not claim.subject:
        return False
    tokens = content_tokens(text)
    if not claim.subject & tokens:
        return False
    present = tokens | numbers(text)
    if claim.object & present:
        return False
    if claim.numbers and claim.object <= claim.numbers:
        return bool(numbers(text) - claim.numbers)
    others = entity_tokens(entities(text)) - entity_tokens(claim.entities)
    return bool(others)


def focus_mismatch(claim: ClaimFeatures, tokens: frozenset[str]) -> bool:
    """The candidate shares the claim's names but none of its predicate words."""
    return bool(claim.focus) and bool(claim.anchors & tokens) and not (claim.focus & tokens)


def subject_mismatch(claim: ClaimFeatures, tokens: frozenset[str], claim_overlap: float) -> bool:
    """The candidate overlaps the claim but never mentions its subject."""
    return bool(claim.subject) and claim_overlap >= 0.10 and not (claim.subject & tokens)


def relation_object_mismatch(claim: ClaimFeatures, relation_object: str) -> bool:
    """The graph relation that reached the candidate ends at something the claim never
    mentions."""
    tail = content_tokens(relation_object)
    return bool(tail) and not (tail & claim.tokens)


def hybrid_rank(
    claim: ClaimFeatures,
    candidates: Sequence[Candidate],
    *,
    tuning: WorkerTuning = DEFAULT_TUNING,
) -> list[Ranked]:
    """Filter, normalise, score and sort (score desc, then key) the candidates; one per
    key (the strongest signals kept)."""
    merged: dict[str, Candidate] = {}
    for cand in candidates:
        old = merged.get(cand.key)
        if old is None:
            merged[cand.key] = cand
            continue
        merged[cand.key] = Candidate(
            key=cand.key,
            text=old.text,
            sem_raw=max(old.sem_raw, cand.sem_raw),
            kg_raw=max(old.kg_raw, cand.kg_raw),
            is_kg=old.is_kg or cand.is_kg,
            credibility=max(old.credibility, cand.credibility),
            days_since_publish=old.days_since_publish,
            backfill=old.backfill and cand.backfill,
            relation_object=old.relation_object or cand.relation_object,
            multihop=old.multihop and cand.multihop,
        )
    kept = [cand for cand in merged.values() if passes_strict_filter(claim, cand)]
    sem = min_max([cand.sem_raw for cand in kept])
    kg = min_max([cand.kg_raw for cand in kept])
    ranked = [
        score_candidate(claim, cand, sem_norm=s, kg_norm=k, tuning=tuning)
        for cand, s, k in zip(kept, sem, kg, strict=True)
    ]
    ranked.sort(key=lambda r: (-r.score, r.key))
    return ranked
