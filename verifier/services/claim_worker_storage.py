"""The claim worker's stored claims: the verified claim stored with origin ``worker``
(unpublished) and queued for its pass through the one chain (bind, judge, state); that
pass; and the cache precheck, which answers from an earlier stored claim."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from verifier import embeddings
from verifier.claim_worker.cache import CachedVerdict, cache_precheck
from verifier.claim_worker.package import deciding_item
from verifier.claim_worker.ranking import Ranked
from verifier.claim_worker.trust import TrustEvidence
from verifier.embeddings import EmbeddingUnavailable
from verifier.engine import get_judge
from verifier.models import Claim, ClaimOrigin, Source, Verdict, Workspace
from verifier.selectors.claim_worker import EvidenceRow, worker_cached_claim
from verifier.services.claim_worker_request import WorkerRequest
from verifier.services.claim_worker_trust import Judged
from verifier.services.enqueue import WORKER_CLAIM_VERIFY, task_enqueue_on_commit
from verifier.services.verification import claims_verify


@dataclass(frozen=True)
class CacheCheck:
    """The cache precheck's answer: ``cached`` answers the request when ``usable``;
    ``reason`` names the gate that decided."""

    cached: CachedVerdict | None
    usable: bool
    reason: str


def worker_cache_check(
    *, workspace: Workspace, request: WorkerRequest, judged: Judged, judge_model: str
) -> CacheCheck:
    """Only when adaptive trust is sufficient (the seed's order): the same claim,
    verified before against exactly this evidence."""
    cached = None
    stored_row = None
    if judged.adaptive.sufficient:
        stored_row = worker_cached_claim(
            workspace=workspace, text=request.text, domain=request.domain, top_k=request.top_k
        )
    if stored_row is not None:
        public_id, state, created_at, stored_result = stored_row
        age = (timezone.now() - created_at).total_seconds()
        cached = CachedVerdict(public_id, state, age, stored_result)
    usable, reason = cache_precheck(
        cached,
        evidence_keys=[r.key for r in judged.found.ranked],
        judge_model=judge_model,
        trust_sufficient=judged.adaptive.sufficient,
        trust_policy_mode=request.mode,
    )
    return CacheCheck(cached, usable, reason)


def stored_vector(text: str, query_vectors: Sequence[Any]) -> Any:
    """The vector the claim is stored with: the fp32 model's, as ingest stores every
    vector (the int8 query path's is for searching only), or the claim's query vector when
    queries run on the fp32 model; None when there are no embeddings."""
    if not query_vectors:
        return None
    if embeddings.QUERY_BACKEND == "torch":
        return query_vectors[0]
    try:
        return embeddings.embed_text_torch(text)
    except EmbeddingUnavailable:
        return None


def _cited(
    workspace: Workspace,
    source: str,
    verdict: str,
    ranked: Sequence[Ranked],
    rows: dict[str, EvidenceRow],
    evidence_trust: Sequence[TrustEvidence],
) -> tuple[Any, str]:
    """(the source the claim cites, its submitted quote): the request's ``source`` when
    it names a source of the workspace, else the source of the item the verdict rests on
    (``deciding_item``: for FALSE the item that contradicts it, never merely the top one;
    else the best supporting item) with that item's quote; when no item took that side,
    the top item's."""
    if source:
        named = Source.objects.filter(workspace=workspace, ref=source).first()
        if named is not None:
            return named, ""
    decided = deciding_item(verdict, [e.stances for e in evidence_trust])
    row = rows[ranked[0 if decided is None else decided].key]
    return Source.objects.get(pk=row.source_id), row.quote


@transaction.atomic
def worker_claim_store(
    *,
    workspace: Workspace,
    text: str,
    vector: Any,
    judged: Judged,
    source: str,
    metadata: dict[str, Any],
    actor: Any,
) -> str:
    """Store the verified claim (origin ``worker``, unpublished) citing the source and
    quote of the evidence its verdict (``metadata["verdict"]``) rests on (``_cited``),
    or the request's ``source`` when that names a source of the workspace; its pass
    through the one chain (bind, judge, state) is queued on commit
    (``worker_claim_verify``), off the request path."""
    found = judged.found
    cited, quote = _cited(
        workspace,
        source,
        str(metadata.get("verdict", "")),
        found.ranked,
        found.by_key,
        judged.evidence_trust,
    )
    claim = Claim.objects.create(
        workspace=workspace,
        text=text,
        original_text=text,
        source=cited,
        origin=ClaimOrigin.WORKER,
        submitted_quote=quote,
        metadata=metadata,
        embedding=vector,
        created_by=actor if getattr(actor, "pk", None) and hasattr(actor, "username") else None,
    )
    task_enqueue_on_commit(WORKER_CLAIM_VERIFY, claim.pk)
    return str(claim.public_id)


def worker_stored_claim_verify(*, claim_id: int) -> str:
    """Bind, judge and state a stored worker claim once (safe to rerun: a claim already
    judged is left as it is). Returns its state."""
    claim = Claim.objects.filter(pk=claim_id, origin=ClaimOrigin.WORKER).first()
    if claim is None:
        return "missing"
    if not Verdict.objects.filter(claim=claim).exists():
        claims_verify(claims=[claim], judge=get_judge())
        claim.refresh_from_db(fields=["state"])
    return str(claim.state)
