"""The claim worker's provenance trace: the request, the evidence it ranked (claims and
sentences, the top ones used, the rest considered) with their spans, and the claim it
stored or answered from (``services.traces``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.claim_worker.trust import TrustEvidence
from verifier.judges import Judge
from verifier.models import Claim, Workspace
from verifier.selectors.claim_worker import EvidenceRow
from verifier.services.claim_worker_request import WorkerRequest
from verifier.services.claim_worker_retrieval import Found
from verifier.services.traces import DoorTrace, TracedClaim, TraceSteps, trace_door_record


def worker_trace(request: WorkerRequest, judge: Judge) -> DoorTrace:
    """The trace of one ``worker_verify`` call, opened before it searches."""
    return DoorTrace(
        operation="worker_verify",
        query=request.text,
        request=request.echo(),
        judge={"model": judge.model_id, "family": judge.family},
        domain_pack=request.domain_pack,
    )


def _span(row: EvidenceRow, score: float, trust: TrustEvidence | None) -> dict[str, Any]:
    """A top item's bound span, its ranking score and its stances."""
    return {
        "evidence_id": row.public_id,
        "kind": row.kind,
        "source_ref": row.source_ref,
        "source_hash": row.source_hash,
        "start": row.start,
        "end": row.end,
        "quote": row.quote,
        "match": row.match,
        "ranking_score": round(score, 4),
        "stances": [s.label for s in trust.stances.values()] if trust else [],
    }


def worker_trace_record(
    workspace: Workspace,
    trace: DoorTrace,
    steps: TraceSteps,
    found: Found,
    *,
    evidence_trust: Sequence[TrustEvidence] = (),
    stored_claim: str | None = None,
    cached_claim: str | None = None,
) -> None:
    """Record the call's trace: every ranked item (claims as traced claims, included when
    in the top ``top_k``; the top items' spans) and, first, the claim it verified."""
    used = {r.key for r in found.ranked}
    stances = {r.key: e for r, e in zip(found.ranked, evidence_trust, strict=False)}
    for r in found.ranked_all:
        row = found.by_key[r.key]
        if row.claim_pk is not None:
            trace.claims.append(
                TracedClaim(
                    pk=row.claim_pk,
                    public_id=row.public_id,
                    state=row.state,
                    role="evidence",
                    included=r.key in used,
                    exclusion_reason="" if r.key in used else "below_top_k",
                )
            )
        if r.key in used:
            trace.spans.append(_span(row, r.score, stances.get(r.key)))
    verified = stored_claim or cached_claim
    if verified:
        claim = (
            Claim.objects.filter(workspace=workspace, public_id=verified)
            .only("pk", "public_id", "state")
            .first()
        )
        if claim is not None:
            trace.claims.insert(
                0, TracedClaim(claim.pk, claim.public_id, claim.state, role="verified")
            )
    trace_door_record(workspace=workspace, trace=trace, steps=steps)
