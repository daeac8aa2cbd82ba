"""Store a RAG answer audit so a flagged answer is reviewed like any other claim.

Each chunk becomes a source (content-addressed ref ``rag-chunk:<sha256[:16]>``, so the
same chunk text is one source whose single version never changes under an old audit);
each audited claim becomes a ``Claim`` with origin ``rag_answer`` citing the chunk that
decided its verdict (a supporting one, else the best partial or contradicting one, else
the chunk it cites, else the first chunk), its evidence bound by the one binder, and the
audit's verdict appended by the configured judge's identity. All in one transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from verifier.domain_packs import RAG_CHUNK_REF_PREFIX
from verifier.engine import get_judge, judge_batch_size
from verifier.judges import Judge
from verifier.models import (
    BoundBy,
    Claim,
    ClaimOrigin,
    RagAudit,
    Source,
    Workspace,
    text_sha256,
)
from verifier.rag import (
    AuditResult,
    Chunk,
    ClaimAudit,
    RagInputError,
    audit_answer,
    check_audit_size,
    parse_chunks,
    validate_answer,
)
from verifier.selectors.claims import claim_checked_before
from verifier.selectors.envelopes import active_binding, latest_verdict
from verifier.selectors.traces import claims_bound_spans, claims_states_now
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_state_refresh
from verifier.services.sources import source_upsert
from verifier.services.traces import DoorTrace, TracedClaim, TraceSteps, trace_door_record
from verifier.services.verdicts import verdict_append
from verifier.states import NO_BOUND_EVIDENCE_NOTE


@dataclass
class RagAuditWrite:
    audit: RagAudit
    result: AuditResult
    claims: list[Claim]
    trace_id: uuid.UUID | None = None  # set by ``rag_audit_run``


def chunk_ref(chunk: Chunk) -> str:
    return f"{RAG_CHUNK_REF_PREFIX}{text_sha256(chunk.text)[:16]}"


def _decisive_chunk(item: ClaimAudit, chunks: Sequence[Chunk]) -> str:
    if item.evidence:
        return item.evidence[0].chunk_id
    known = {c.id for c in chunks}
    cited = [c for c in item.claim.cited if c in known]
    return cited[0] if cited else chunks[0].id


def _store_claim(
    *,
    workspace: Workspace,
    item: ClaimAudit,
    source_id: int,
    result: AuditResult,
    actor: User | None,
) -> Claim:
    window = item.evidence[0] if item.evidence else None
    again = claim_checked_before(
        workspace=workspace,
        source_id=source_id,
        origin=ClaimOrigin.RAG_ANSWER,
        text=item.claim.text,
        original_text=item.claim.span,
        quote=window.quote if window else "",
        judge_model=result.judge_model,
        prompt_version=result.prompt_version,
    )
    binding = None
    if again is not None:
        before = latest_verdict(again)
        if before is None or before.label != "coverage_gap":
            return again  # the same words audited again against the same chunk
        # the judge gave no answer on it last time: this audit's verdict is its answer
        claim, binding = again, active_binding(again)
    else:
        claim = Claim.objects.create(
            workspace=workspace,
            text=item.claim.text,
            original_text=item.claim.span,
            source_id=source_id,
            origin=ClaimOrigin.RAG_ANSWER,
            submitted_quote=window.quote if window else "",
            flagged=item.verdict != "supported",
            created_by=actor,
        )
        if window is not None:
            outcome = claim_bind(
                claim=claim, quote=window.quote, actor=actor, bound_by=BoundBy.EVIDENCE_SEARCH
            )
            binding = outcome.binding
    verdict_append(
        claim=claim,
        binding=binding,
        judge_model=result.judge_model,
        judge_family=result.judge_family,
        prompt_version=result.prompt_version,
        label=item.label,
        confidence=item.confidence,
        # No chunk backs it: nothing was bound, so no judge was asked. The state writer
        # reads this note as "no evidence", not "the judge could not decide" (the audit's
        # own row keeps why).
        note=NO_BOUND_EVIDENCE_NOTE
        if binding is None and item.label == "abstained"
        else f"rag audit: {item.verdict}; {item.note}",
    )
    claim_state_refresh(claim=claim, cause=f"rag audit: {item.verdict}")
    return claim


@transaction.atomic
def rag_audit_store(
    *, workspace: Workspace, result: AuditResult, actor: User | None = None
) -> RagAuditWrite:
    """Persist ``result``: the audit row, chunks as sources, claims with evidence (a claim
    an earlier audit stored with the same words, chunk, quote and judge is that claim,
    not a second one: ``claim_checked_before``; when the judge gave no answer on it then,
    a ``coverage_gap``, this audit's verdict is appended to it)."""
    chunks = list(result.chunks)
    source_ids = {}
    # In the refs' order, as every door storing several sources: two audits listing the
    # same chunks in other orders would each hold a chunk's row the other waits for.
    for chunk in sorted(chunks, key=chunk_ref):
        write = source_upsert(
            workspace=workspace,
            ref=chunk_ref(chunk),
            text=chunk.text,
            title=f"RAG chunk {chunk.id}"[:300],
            domain_pack="rag",
            door="rag_chunk",
        )
        source_ids[chunk.id] = write.source.pk
    # two audits of one answer at once would each find no earlier claim: one at a time
    locked = Source.objects.select_for_update(no_key=True).filter(pk__in=set(source_ids.values()))
    list(locked.order_by("pk").values_list("pk", flat=True))
    audit = RagAudit.objects.create(
        workspace=workspace,
        answer=result.answer,
        chunks=[{"id": c.id, "text": c.text} for c in chunks],
        result=result.as_dict(),
        verdict=result.verdict,
        created_by=actor,
    )
    claims = [
        _store_claim(
            workspace=workspace,
            item=item,
            source_id=source_ids[_decisive_chunk(item, chunks)],
            result=result,
            actor=actor,
        )
        for item in result.claims
    ]
    audit.claims.set(claims)
    return RagAuditWrite(audit, result, claims)


def rag_audit_run(
    *,
    workspace: Workspace,
    answer: str,
    chunks: object,
    actor: User | None = None,
    judge: Judge | None = None,
) -> RagAuditWrite:
    """Parse, audit (outside the transaction: judging may take a while) and store, with
    the call's trace (one, written with the audit).

    Raises ``verifier.rag.RagInputError`` for bad input, ``details.field`` naming the
    field (``chunks[i]`` for one chunk, ``chunks`` for all of them).
    """
    steps = TraceSteps()
    with steps.step("parse") as detail:
        validate_answer(answer)
        try:
            parsed = parse_chunks(chunks)
        except RagInputError as exc:
            if "field" not in exc.details:
                index = exc.details.get("index")
                field = f"chunks[{index}]" if isinstance(index, int) else "chunks"
                exc.details = {"field": field, **exc.details}
            raise
        check_audit_size(answer, parsed)
        detail["chunks"] = len(parsed)
    with steps.step("audit") as detail:
        result = audit_answer(
            answer, parsed, judge=judge or get_judge(), batch_size=judge_batch_size()
        )
        detail.update(claims=len(result.claims), verdict=result.verdict)
    # The audit and its trace are stored together, or neither is.
    with transaction.atomic():
        with steps.step("store", claims=len(result.claims)):
            write = rag_audit_store(workspace=workspace, result=result, actor=actor)
        _trace_rag_audit(workspace=workspace, write=write, steps=steps)
    return write


def _trace_rag_audit(*, workspace: Workspace, write: RagAuditWrite, steps: TraceSteps) -> None:
    """The audit's trace: the answer, each atomic claim with the chunk spans that decided
    it, and the judge's identity."""
    result = write.result
    states = claims_states_now(write.claims)
    trace = DoorTrace(
        operation="rag_audit",
        query=result.answer,
        request={"chunks": [c.id for c in result.chunks], "answer_chars": len(result.answer)},
        judge={
            "model": result.judge_model,
            "family": result.judge_family,
            "prompt_version": result.prompt_version,
        },
        domain_pack="rag",
        claims=[
            TracedClaim(c.pk, c.public_id, states[c.pk], role="verified") for c in write.claims
        ],
        spans=claims_bound_spans(write.claims),
        result={
            "rag_audit": write.audit.pk,
            "verdict": result.verdict,
            "claims": [
                {
                    "claim_id": claim.public_id,
                    "verdict": item.verdict,
                    "supported_by": list(item.supported_by),
                }
                for claim, item in zip(write.claims, result.claims, strict=True)
            ],
        },
    )
    write.trace_id = trace.trace_id
    trace_door_record(workspace=workspace, trace=trace, steps=steps)
