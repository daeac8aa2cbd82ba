"""The claim worker's verdict package (seed 001): from the judge's stances of the top
evidence items toward every subclaim and the adaptive trust over them, the segment
statuses, the reconciled verdict, truthfulness, the final confidence and the
diagnostics the seed's debugging order reads. Pure: no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.claim_worker import verdict as verdict_mod
from verifier.claim_worker.config import WorkerTuning
from verifier.claim_worker.ranking import Ranked
from verifier.claim_worker.text import (
    ClaimFeatures,
    claim_strictness,
    has_reporting,
    has_uncertainty,
    numbers,
)
from verifier.claim_worker.trust import AdaptiveTrust, Stance, TrustEvidence

SIDES = ("entailed", "contradicted")  # the stances that take a side


@dataclass(frozen=True)
class _Reading:
    """What the stances say, per subclaim and per item."""

    signals: list[verdict_mod.SegmentSignal]
    statuses: tuple[str, ...]
    supporting: list[tuple[Ranked, TrustEvidence]]  # items entailing some subclaim, ranked
    strictness: float


def deciding_item(verdict: str, stances: Sequence[Mapping[int, Stance]]) -> int | None:
    """The index of the evidence item ``verdict`` rests on (``stances[j]``: item j's
    stance toward each subclaim, items in ranked order), or None when no item took the
    side the verdict states.

    FALSE rests on a contradiction: the item contradicting a subclaim with the highest
    confidence (the ``best_contradiction`` the verdict read), the better ranked on a tie;
    never an item that only sits above it in the ranking. Any other verdict rests on
    the best-ranked item entailing a subclaim."""
    if verdict == "FALSE":
        best: tuple[float, int] | None = None
        for j, item in enumerate(stances):
            refutes = [s.confidence for s in item.values() if s.label == "contradicted"]
            if refutes and (best is None or max(refutes) > best[0]):
                best = (max(refutes), j)
        return None if best is None else best[1]
    return next(
        (j for j, item in enumerate(stances) if any(s.label == "entailed" for s in item.values())),
        None,
    )


def _hedged(text: str) -> bool:
    return has_uncertainty(text) or has_reporting(text)


def _segment_signals(
    subclaims: Sequence[str], evidence_trust: Sequence[TrustEvidence]
) -> list[verdict_mod.SegmentSignal]:
    signals = []
    for i, sub in enumerate(subclaims):
        entails = [
            e.stances[i].confidence for e in evidence_trust if e.stances[i].label == "entailed"
        ]
        refutes = [
            e.stances[i].confidence for e in evidence_trust if e.stances[i].label == "contradicted"
        ]
        signals.append(
            verdict_mod.SegmentSignal(
                sub,
                len(entails),
                len(refutes),
                max(entails, default=0.0),
                max(refutes, default=0.0),
            )
        )
    return signals


def _reading(
    features: ClaimFeatures,
    subclaims: Sequence[str],
    ranked: Sequence[Ranked],
    evidence_trust: Sequence[TrustEvidence],
) -> _Reading:
    signals = _segment_signals(subclaims, evidence_trust)
    supporting = [
        (r, e)
        for r, e in zip(ranked, evidence_trust, strict=True)
        if any(s.label == "entailed" for s in e.stances.values())
    ]
    return _Reading(
        signals,
        tuple(verdict_mod.segment_status(s) for s in signals),
        supporting,
        claim_strictness(features),
    )


def _reconciled(
    reading: _Reading,
    features: ClaimFeatures,
    ranked: Sequence[Ranked],
    adaptive: AdaptiveTrust,
    tuning: WorkerTuning,
) -> verdict_mod.Reconciled:
    statuses, supporting = reading.statuses, reading.supporting
    top = supporting[0][0] if supporting else (ranked[0] if ranked else None)
    hedged = [r for r, _e in supporting if _hedged(r.candidate.text)]
    return verdict_mod.reconcile(
        verdict_mod.ReconcileInputs(
            proposed=verdict_mod.proposed_verdict(statuses),
            statuses=statuses,
            contradict_ratio=sum(1 for s in statuses if s in verdict_mod.CONTRADICTING)
            / len(statuses),
            best_contradiction=max((s.best_contradict for s in reading.signals), default=0.0),
            best_entailment=max((s.best_entail for s in reading.signals), default=0.0),
            coverage=adaptive.coverage,
            diversity=adaptive.diversity,
            policy_sufficient=adaptive.sufficient,
            anchor_match=top.anchor_match if top else 0.0,
            predicate_match=top.claim_overlap if top else 0.0,
            hedged_share=len(hedged) / len(supporting) if supporting else 0.0,
            absolute=features.absolute,
            strictness=reading.strictness,
        ),
        tuning,
    )


def _numeric_support(features: ClaimFeatures, reading: _Reading) -> float | None:
    """The share of the claim's numbers the supporting items state (None: it states none)."""
    if not features.numbers:
        return None
    stated = {n for r, _e in reading.supporting for n in numbers(r.candidate.text)}
    return len(features.numbers & stated) / len(features.numbers)


def _confidence(
    reading: _Reading,
    reconciled: verdict_mod.Reconciled,
    truthfulness: float,
    numeric_support: float | None,
    features: ClaimFeatures,
    evidence_count: int,
    adaptive: AdaptiveTrust,
    tuning: WorkerTuning,
) -> float:
    return verdict_mod.final_confidence(
        verdict_mod.ConfidenceInputs(
            truthfulness=truthfulness / 100,
            coverage=adaptive.coverage,
            agreement=adaptive.agreement,
            diversity=adaptive.diversity,
            trust_post=adaptive.trust_post,
            verdict=reconciled.verdict,
            statuses=reading.statuses,
            policy_sufficient=adaptive.sufficient,
            comparative=features.comparative,
            strictness=reading.strictness,
            evidence_count=evidence_count,
            numeric_support=numeric_support,
            strong_contradiction=reconciled.strong_contradiction,
        ),
        tuning,
    )


def _segment_evidence(
    ranked: Sequence[Ranked], evidence_trust: Sequence[TrustEvidence], n: int
) -> list[verdict_mod.SegmentEvidence | None]:
    """Per subclaim, the best-ranked item that takes a side on it (None: no item does)."""
    segments: list[verdict_mod.SegmentEvidence | None] = []
    for i in range(n):
        best = next(
            (
                (r, e)
                for r, e in zip(ranked, evidence_trust, strict=True)
                if e.stances[i].label in SIDES
            ),
            None,
        )
        if best is None:
            segments.append(None)
            continue
        r, e = best
        segments.append(
            verdict_mod.SegmentEvidence(
                semantic=r.candidate.sem_raw,
                kg=min(1.0, r.candidate.kg_raw),
                anchor_overlap=r.anchor_match,
                overlap_ratio=r.claim_overlap,
                credibility=r.candidate.credibility,
                contradicted=e.stances[i].label == "contradicted",
                uncertain_or_reporting=_hedged(r.candidate.text),
            )
        )
    return segments


def _claim_breakdown(
    subclaims: Sequence[str], reading: _Reading, adaptive: AdaptiveTrust
) -> list[dict[str, Any]]:
    return [
        {
            "index": i,
            "subclaim": sub,
            "status": reading.statuses[i],
            "unresolved": reading.statuses[i] == "UNKNOWN",
            "weight": adaptive.details[i].weight,
        }
        for i, sub in enumerate(subclaims)
    ]


def _evidence_map(
    subclaims: Sequence[str], reading: _Reading, evidence_trust: Sequence[TrustEvidence]
) -> list[dict[str, Any]]:
    return [
        {
            "subclaim_index": i,
            "subclaim": sub,
            "status": reading.statuses[i],
            "supporting": [e.key for e in evidence_trust if e.stances[i].label == "entailed"],
            "contradicting": [
                e.key for e in evidence_trust if e.stances[i].label == "contradicted"
            ],
            "support_strength": round(reading.signals[i].best_entail, 4),
            "contradiction_strength": round(reading.signals[i].best_contradict, 4),
        }
        for i, sub in enumerate(subclaims)
    ]


def _analysis_counts(
    reading: _Reading,
    ranked: Sequence[Ranked],
    evidence_trust: Sequence[TrustEvidence],
    adaptive: AdaptiveTrust,
) -> dict[str, Any]:
    statuses = reading.statuses
    admissible = [e for e in evidence_trust if any(s.label in SIDES for s in e.stances.values())]
    return {
        "subclaims": len(statuses),
        "evidence": len(ranked),
        "admissible_evidence": len(admissible),
        "admissible_evidence_ratio": round(len(admissible) / len(ranked), 4) if ranked else 0.0,
        "supporting_evidence": len(reading.supporting),
        "contradicting_evidence": len([e for e in evidence_trust if e.contradicts]),
        "unresolved_segments": sum(1 for s in statuses if s == "UNKNOWN"),
        "contradicted_segments": sum(1 for s in statuses if s in verdict_mod.CONTRADICTING),
        "strong_covered_subclaims": adaptive.strong_covered,
    }


JUDGE_NO_ANSWER = "judge_no_answer"
JUDGE_NOTE_SHOWN_CHARS = 300


def judge_gap_reasons(evidence_trust: Sequence[TrustEvidence]) -> list[str]:
    """``judge_no_answer: <n> of <m> stances: <why>`` when the judge gave no answer for
    some stances (coverage gaps: it was unreachable, answered an error or garbage, or
    left items out), ``<why>`` the first gap's note; else nothing. With every stance a
    gap, the verdict is UNVERIFIABLE for want of a judge, not of evidence."""
    stances = [s for e in evidence_trust for _i, s in sorted(e.stances.items())]
    gaps = [s for s in stances if s.label == "coverage_gap"]
    if not gaps:
        return []
    why = gaps[0].note[:JUDGE_NOTE_SHOWN_CHARS] or "no note"
    return [f"{JUDGE_NO_ANSWER}: {len(gaps)} of {len(stances)} stances: {why}"]


def verdict_package(
    *,
    features: ClaimFeatures,
    subclaims: Sequence[str],
    ranked: Sequence[Ranked],
    evidence_trust: Sequence[TrustEvidence],
    adaptive: AdaptiveTrust,
    tuning: WorkerTuning,
) -> dict[str, Any]:
    """The verdict package's fields of the response (seed 001's output and response
    signals); ``evidence_trust[j]`` holds the stances of ``ranked[j]``."""
    reading = _reading(features, subclaims, ranked, evidence_trust)
    reconciled = _reconciled(reading, features, ranked, adaptive, tuning)
    numeric_support = _numeric_support(features, reading)
    truthfulness = verdict_mod.truthfulness_percent(
        reading.statuses,
        diversity=adaptive.diversity,
        verdict=reconciled.verdict,
        absolute=features.absolute,
        tuning=tuning,
        numeric_support=numeric_support,
    )
    confidence = _confidence(
        reading, reconciled, truthfulness, numeric_support, features, len(ranked), adaptive, tuning
    )
    segments = _segment_evidence(ranked, evidence_trust, len(reading.statuses))
    return {
        "verdict": reconciled.verdict,
        "verdict_confidence": confidence,
        # the seed's output names "confidence": the one final composite confidence
        "confidence": confidence,
        "truthfulness_percent": truthfulness,
        "numeric_support": None if numeric_support is None else round(numeric_support, 4),
        "evidence_quality_percent": verdict_mod.evidence_quality_percent(
            segments, diversity=adaptive.diversity
        ),
        "claim_breakdown": _claim_breakdown(subclaims, reading, adaptive),
        "evidence_map": _evidence_map(subclaims, reading, evidence_trust),
        "proposed_verdict": verdict_mod.proposed_verdict(reading.statuses),
        "reconciliation_reasons": [*reconciled.reasons, *judge_gap_reasons(evidence_trust)],
        "claim_strictness": round(reading.strictness, 4),
        "analysis_counts": _analysis_counts(reading, ranked, evidence_trust, adaptive),
    }
