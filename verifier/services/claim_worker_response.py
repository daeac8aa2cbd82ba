"""The body ``POST /worker/verify`` answers: the request, the verdict package, every top
evidence item (a bound span with its stances and ranking signals) and the trust,
retrieval and judge diagnostics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.claim_worker.ranking import Ranked
from verifier.claim_worker.trust import TrustEvidence
from verifier.judges import Judge
from verifier.selectors.claim_worker import CLAIM, EvidenceRow
from verifier.services.claim_worker_request import WorkerRequest
from verifier.services.claim_worker_trust import Judged


def _stance(trust: TrustEvidence) -> str:
    labels = {s.label for s in trust.stances.values()}
    if "contradicted" in labels:
        return "contradicts"
    return "supports" if "entailed" in labels else "neutral"


def _signals(r: Ranked) -> dict[str, Any]:
    return {
        "sem_raw": round(r.candidate.sem_raw, 4),
        "sem_norm": round(r.sem_norm, 4),
        "kg_raw": round(r.candidate.kg_raw, 4),
        "kg_norm": round(r.kg_norm, 4),
        "entity_overlap": round(r.entity_overlap, 4),
        "claim_overlap": round(r.claim_overlap, 4),
        "anchor_match": round(r.anchor_match, 4),
        "recency": round(r.recency, 4),
        "credibility": round(r.candidate.credibility, 4),
        "base_score": round(r.base, 4),
        "relation_object": r.candidate.relation_object,
        "adjustments": list(r.adjustments),
    }


def evidence_item(
    r: Ranked, row: EvidenceRow, trust: TrustEvidence, subclaims: Sequence[str]
) -> dict[str, Any]:
    """One top evidence item of the response."""
    return {
        "id": row.public_id,
        "kind": row.kind,
        "text": row.text,
        "quote": row.quote,
        "start": row.start,
        "end": row.end,
        "source_hash": row.source_hash,
        "match": row.match,
        "source_id": row.source_id,
        "source_ref": row.source_ref,
        "source_title": row.source_title,
        "source_version_id": row.source_version_id,
        "source_domain": trust.domain,
        "verification_state": row.state or None,
        "ranking_score": round(r.score, 4),
        "stance": _stance(trust),
        "stances": [
            {
                "subclaim_index": i,
                "label": trust.stances[i].label,
                "confidence": round(trust.stances[i].confidence, 4),
            }
            for i in range(len(subclaims))
        ],
        "signals": _signals(r),
    }


def _trust_fields(judged: Judged) -> dict[str, Any]:
    adaptive = judged.adaptive
    return {
        "trust_metric_value": round(adaptive.trust_post, 4),
        "trust_threshold_met": adaptive.sufficient,
        "trust_route": adaptive.route,
        "trust_verdict_state": adaptive.verdict_state,
        "coverage": round(adaptive.coverage, 4),
        "diversity": round(adaptive.diversity, 4),
        "agreement": round(adaptive.agreement, 4),
        "trust_post_adaptive": round(adaptive.trust_post, 4),
        "trust_post_fixed": round(adaptive.trust_post_fixed, 4),
    }


def _retrieval_fields(judged: Judged, web: dict[str, Any]) -> dict[str, Any]:
    found = judged.found
    got, rows, ranked_all = found.got, found.rows, found.ranked_all
    sources_used = {"vdb": bool(got.sem) or bool(got.sentence_sem), "kg": bool(got.kg)}
    return {
        "data_source": "+".join(k for k, v in sources_used.items() if v) or "none",
        "used_web_search": bool(web["ingested"]),
        "web_expansion": web,
        "vdb_signal_count": sum(1 for r in ranked_all if r.candidate.sem_raw > 0),
        "kg_signal_count": sum(1 for r in ranked_all if r.candidate.kg_raw > 0),
        "candidates_considered": len(rows),
        "sentence_candidates": sum(1 for row in rows if row.kind != CLAIM),
        "candidates_ranked": len(ranked_all),
        "chunk_prefilter": found.chunk_prefilter,
        "retrieval_degraded": not got.vector_available,
    }


def worker_response(
    *,
    request: WorkerRequest,
    subclaims: Sequence[str],
    judged: Judged,
    package: dict[str, Any],
    web: dict[str, Any],
    cache_reason: str,
    judge: Judge,
) -> dict[str, Any]:
    """The verified claim's response (before the stored claim's id and the timings)."""
    ranked = judged.found.ranked
    evidence = [
        evidence_item(r, judged.found.by_key[r.key], judged.evidence_trust[j], subclaims)
        for j, r in enumerate(ranked)
    ]
    scores = [r.score for r in ranked]
    return {
        "job_id": request.job_id,
        "room_id": request.room_id,
        "source": request.source,
        "domain": request.domain,
        "claim": request.text,
        "status": "completed",
        "cache": {"reason": cache_reason, "age_seconds": None},
        **package,
        "evidence": evidence,
        "top_ranking_score": round(max(scores), 4) if scores else 0.0,
        "avg_ranking_score": round(sum(scores) / len(scores), 4) if scores else 0.0,
        "trust_policy_mode": request.mode,
        **_trust_fields(judged),
        **_retrieval_fields(judged, web),
        "judge": {"model_id": judge.model_id, "family": judge.family},
    }
