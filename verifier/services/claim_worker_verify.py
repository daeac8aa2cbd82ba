"""``POST /worker/verify`` (seed 001): one free-text claim verified against the whole
corpus of a workspace, with ranked, bound evidence.

Runtime path (``CorrectivePipeline.run`` in the seed), one module per step:

1. the request checked, the claim decomposed into subclaims (``claim_worker_request``);
2. retrieval and ranking: pgvector (published claims, each bound to its exact source
   sentence, and the sentence index), the knowledge graph, the chunk prefilter on the
   source sentences, the pure hybrid ranking (``claim_worker_retrieval``);
3. the Layer-2 judge's stance of every top item toward every subclaim
   (``claim_worker_judging``; stances never come from overlap), then adaptive trust
   (``claim_worker_trust``);
4. only when trust is sufficient, the cache precheck: an earlier stored claim may answer
   (``claim_worker_storage``);
5. while trust is insufficient and a search provider is configured (off by default), web
   expansion (``claim_worker_web_expansion``);
6. the verdict package (pure: ``verifier.claim_worker.package``) and the response
   (``claim_worker_response``);
7. the claim stored with origin ``worker``; its pass through the one chain (bind in the
   source of its best evidence, judge, state) is enqueued on commit
   (``claim_worker_storage``), so it appears in the review queue and the audit console;
8. the call's trace (``claim_worker_trace``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from verifier.claim_worker.config import WorkerTuning
from verifier.claim_worker.package import verdict_package
from verifier.claim_worker.text import ClaimFeatures, claim_features
from verifier.domain_packs import DEFAULT_DOMAIN_PACK
from verifier.engine import get_judge
from verifier.judges import Judge
from verifier.models import Workspace
from verifier.selectors.rules import rule_set_domain_packs
from verifier.services.claim_worker_request import (
    TOP_K_DEFAULT,
    WorkerRequest,
    subclaims_of,
    worker_request,
    worker_tuning,
)
from verifier.services.claim_worker_response import worker_response
from verifier.services.claim_worker_retrieval import Found, retrieve_and_rank
from verifier.services.claim_worker_storage import (
    CacheCheck,
    stored_vector,
    worker_cache_check,
    worker_claim_store,
)
from verifier.services.claim_worker_trace import worker_trace, worker_trace_record
from verifier.services.claim_worker_trust import Judged, judge_and_trust
from verifier.services.claim_worker_web_expansion import (
    WEB_STOPPED_TRUST_SUFFICIENT,
    web_expand,
    web_expansion_provider,
)
from verifier.services.traces import DoorTrace, TraceSteps


class _Timer:
    """The response's ``timing_ms``: each phase's wall time, then the total."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.ms: dict[str, float] = {}
        self._phase = self.started

    def start(self) -> None:
        self._phase = time.perf_counter()

    def stop(self, name: str) -> None:
        self.ms[name] = (time.perf_counter() - self._phase) * 1000

    def rounded(self) -> dict[str, float]:
        self.ms["total_ms"] = (time.perf_counter() - self.started) * 1000
        return {k: round(v, 2) for k, v in self.ms.items()}


@dataclass
class _Call:
    """One ``worker_verify`` call: the checked request and what every step reads."""

    workspace: Workspace
    request: WorkerRequest
    features: ClaimFeatures
    subclaims: list[str]
    tuning: WorkerTuning
    judge: Judge
    steps: TraceSteps
    trace: DoorTrace
    timer: _Timer

    @property
    def queries(self) -> list[str]:
        """The retrieval queries: the claim and each subclaim."""
        return list(dict.fromkeys([self.request.text, *self.subclaims]))

    def search(self) -> Judged:
        """Retrieve, rank, judge and weigh the evidence (again, after web expansion)."""
        found = self.rank()
        return judge_and_trust(self.judge, self.subclaims, found, self.request.mode)

    def rank(self) -> Found:
        """The ranked evidence of one search."""
        request = self.request
        return retrieve_and_rank(
            self.workspace,
            self.queries,
            self.features,
            request.domain_pack,
            request.top_k,
            self.tuning,
            self.judge,
        )


def _first_search(call: _Call) -> Judged:
    """The search, as the trace's ``retrieve_and_rank`` and ``judge`` steps."""
    call.timer.start()
    with call.steps.step("retrieve_and_rank", queries=len(call.queries)) as detail:
        found = call.rank()
        detail.update(candidates=len(found.rows), ranked=len(found.ranked))
    call.timer.stop("retrieve_rank_ms")
    call.timer.start()
    with call.steps.step("judge", items=len(call.subclaims) * len(found.ranked)):
        judged = judge_and_trust(call.judge, call.subclaims, found, call.request.mode)
    call.timer.stop("judge_ms")
    return judged


def _cache_check(call: _Call, judged: Judged) -> CacheCheck:
    with call.steps.step("cache_precheck") as detail:
        check = worker_cache_check(
            workspace=call.workspace,
            request=call.request,
            judged=judged,
            judge_model=call.judge.model_id,
        )
        detail["reason"] = check.reason
    return check


def _answered_from_cache(call: _Call, check: CacheCheck, judged: Judged) -> dict[str, Any]:
    cached, request, trace = check.cached, call.request, call.trace
    assert cached is not None
    timing = call.timer.rounded()
    trace.result = {
        "status": "completed_from_cache",
        "stored_claim_id": cached.claim_id,
        "verdict": cached.result.get("verdict"),
    }
    worker_trace_record(
        call.workspace, trace, call.steps, judged.found, cached_claim=cached.claim_id
    )
    return {
        **cached.result,
        "job_id": request.job_id,
        "room_id": request.room_id,
        "source": request.source,
        "status": "completed_from_cache",
        "cache": {"reason": check.reason, "age_seconds": round(cached.age_seconds, 1)},
        "stored_claim_id": cached.claim_id,
        "timing_ms": timing,
        "trace_id": str(trace.trace_id),
    }


def _web_expanded(call: _Call, judged: Judged) -> tuple[Judged, dict[str, Any]]:
    """Web expansion while trust is insufficient (off unless a provider is configured:
    ``enabled`` false). With a provider and trust already sufficient, nothing is searched:
    ``enabled`` true, ``stopped`` ``trust_sufficient``."""
    config, provider = web_expansion_provider()
    if provider is None:
        return judged, {"enabled": False, "queries": [], "ingested": [], "errors": []}
    if judged.adaptive.sufficient:
        return judged, {
            "enabled": True,
            "queries": [],
            "ingested": [],
            "errors": [],
            "stopped": WEB_STOPPED_TRUST_SUFFICIENT,
        }
    call.timer.start()
    with call.steps.step("web_expansion"):
        expanded = web_expand(
            workspace=call.workspace,
            text=call.request.text,
            subclaims=call.subclaims,
            judged=judged,
            config=config,
            provider=provider,
            rejudge=call.search,
        )
    call.timer.stop("web_ms")
    return expanded


def _verified(
    call: _Call, judged: Judged, web: dict[str, Any], cache_reason: str
) -> dict[str, Any]:
    """The verdict package and the response."""
    with call.steps.step("verdict"):
        package = verdict_package(
            features=call.features,
            subclaims=call.subclaims,
            ranked=judged.found.ranked,
            evidence_trust=judged.evidence_trust,
            adaptive=judged.adaptive,
            tuning=call.tuning,
        )
    return worker_response(
        request=call.request,
        subclaims=call.subclaims,
        judged=judged,
        package=package,
        web=web,
        cache_reason=cache_reason,
        judge=call.judge,
    )


def _stored(call: _Call, judged: Judged, result: dict[str, Any], actor: Any) -> str:
    """Store the verified claim; the stored claim's id."""
    request = call.request
    with call.steps.step("store_claim"):
        return worker_claim_store(
            workspace=call.workspace,
            text=request.text,
            vector=stored_vector(request.text, judged.found.vectors),
            judged=judged,
            source=request.source,
            metadata={
                **request.echo(),
                "trust_policy_mode": request.mode,
                "verdict": result["verdict"],
                "verdict_confidence": result["verdict_confidence"],
                "truthfulness_percent": result["truthfulness_percent"],
                "evidence": [e["id"] for e in result["evidence"]],
                "worker_result": result,
            },
            actor=actor,
        )


def worker_verify(
    *,
    workspace: Workspace,
    job_id: str,
    claim: str,
    room_id: str = "",
    source: str = "",
    domain: str = "general",
    top_k: int = TOP_K_DEFAULT,
    trust_policy_mode: str | None = None,
    actor: Any = None,
    judge: Judge | None = None,
    store: bool = True,
) -> dict[str, Any]:
    """Verify ``claim`` against the workspace's corpus; the seed's verdict package."""
    timer = _Timer()
    request = worker_request(
        job_id=job_id,
        claim=claim,
        room_id=room_id,
        source=source,
        domain=domain,
        top_k=top_k,
        trust_policy_mode=trust_policy_mode,
        # the default pack is always known: the workspace's packs (a scan of its sources)
        # are read only for a request that names another
        known_packs=()
        if (domain or DEFAULT_DOMAIN_PACK) == DEFAULT_DOMAIN_PACK
        else rule_set_domain_packs(workspace=workspace),
    )
    tuning = worker_tuning()
    judge = judge or get_judge()
    features, subclaims = claim_features(request.text), subclaims_of(request.text)
    steps, trace = TraceSteps(), worker_trace(request, judge)
    call = _Call(workspace, request, features, subclaims, tuning, judge, steps, trace, timer)
    judged = _first_search(call)
    check = _cache_check(call, judged)
    if check.usable and check.cached is not None:
        return _answered_from_cache(call, check, judged)
    judged, web = _web_expanded(call, judged)
    result = _verified(call, judged, web, check.reason)
    stored_id = _stored(call, judged, result, actor) if store and judged.found.ranked else None
    trace.result = {
        "status": "completed",
        "verdict": result["verdict"],
        "verdict_confidence": result["verdict_confidence"],
        "truthfulness_percent": result["truthfulness_percent"],
        "stored_claim_id": stored_id,
    }
    worker_trace_record(
        workspace,
        trace,
        steps,
        judged.found,
        evidence_trust=judged.evidence_trust,
        stored_claim=stored_id,
    )
    return {
        **result,
        "stored_claim_id": stored_id,
        "timing_ms": timer.rounded(),
        "trace_id": str(trace.trace_id),
    }
