"""Serving verified context: seeds → expansion → read-time re-check → ranking → policy
gate → envelopes → provenance trace.

:class:`ServeRun` does the reads (seeds by vector or text, relation expansion, the claim
load) and the read-time re-check; the order, the gate and its exclusion reasons, the
context block and the summaries are the pure :mod:`verifier.retrieval_ranking`.
``context_retrieve`` serves ``POST /connect/v1/retrieve``; the graph operations built on
the same run are in :mod:`verifier.services.graph_query`.

The read-time re-check runs on every supported/inferred claim considered, before the
gate, through ``claim_recheck_on_read`` — it demotes the stored claim and the response
alike and never promotes. The per-state summary counts the served claims after that.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any, Final

from django.db import transaction
from django.utils import timezone

from verifier import embeddings
from verifier.errors import ApplicationError
from verifier.models import ClaimStateChoices, Workspace
from verifier.request_id import NO_REQUEST, current_request_id
from verifier.retrieval_ranking import (
    Considered,
    VerificationPolicy,
    context_block,
    exclusion_counts,
    gate,
    rank,
    state_summary,
)
from verifier.selectors import retrieval as sel
from verifier.selectors.claim_state import BindingCheck, binding_recheck, binding_recheck_span
from verifier.selectors.envelopes import (
    active_binding,
    claim_envelope,
    claim_trust_score,
    iso_millis,
)
from verifier.services.claim_state import claim_recheck_on_read
from verifier.services.traces import (
    TRACE_DOCUMENT_VERSION,
    TraceClaimRow,
    TraceWrite,
    trace_record,
    trace_recording,
)
from verifier.trace_caller import caller_document

DEPTH_HOPS: Final = {"quick": 0, "standard": 1, "deep": 2}
HOP_DECAY: Final = 0.85
SEED_OVERFETCH: Final = 2  # seeds fetched per requested claim, so gated ones can be replaced
MIN_SEEDS: Final = 20
MAX_SEEDS: Final = 1000
MAX_EXPANDED: Final = 2000
SEED_TEXT_CHARS: Final = 200


class RetrievalInputError(ApplicationError, ValueError):
    """A retrieval or graph query that is unusable (the API answers 400)."""


def _trust(claim: sel.ServedClaim) -> int:
    return claim_trust_score(claim)


def _demote_stale(checks: Sequence[tuple[Any, BindingCheck]]) -> dict[int, str]:
    """Demote each claim whose check is not fresh (stored claim and instance alike);
    returns {claim pk: state before} for demotions."""
    demoted: dict[int, str] = {}
    for claim, check in checks:
        if check.status == "fresh":
            continue  # claim_recheck_on_read would return None; skip its savepoint
        before = claim.state
        if claim_recheck_on_read(claim=claim, check=check) is not None:
            demoted[claim.pk] = before
    return demoted


def _rechecked(claims: Sequence[Any]) -> list[Any]:
    return [
        c for c in claims if c.state in (ClaimStateChoices.SUPPORTED, ClaimStateChoices.INFERRED)
    ]


def claims_recheck_on_read(*, claims: Sequence[Any]) -> dict[int, str]:
    """Read-time re-check of every supported/inferred claim in ``claims`` (loaded through
    ``claims_for_envelopes``) against the current version of its source (one query).
    Demotes the stored claim and the instance; returns {claim pk: state before} for
    demotions."""
    rechecked = _rechecked(claims)
    versions = sel.current_versions(source_pks=[c.source_id for c in rechecked])
    checks = []
    for claim in rechecked:
        binding = active_binding(claim)
        version = versions.get(claim.source_id)
        checks.append(
            (
                claim,
                BindingCheck(binding, version, binding_recheck(binding=binding, version=version)),
            )
        )
    return _demote_stale(checks)


def served_claim_check(claim: sel.ServedClaim) -> BindingCheck:
    """The re-check of a claim loaded by ``sel.served_claims``, from the current
    version's hash and text at the offsets that it carries (no query)."""
    binding = claim.binding
    span = claim.current_span
    status = binding_recheck_span(
        binding=binding,  # type: ignore[arg-type]
        sha256=span.version.sha256 if span else None,
        span_text=span.span_text if span else "",
    )
    return BindingCheck(binding, span.version if span else None, status)  # type: ignore[arg-type]


# --- the serving run ----------------------------------------------------------------------


def serve_request_id() -> str:
    """The id of the HTTP request being answered (its ``X-Request-ID``, the id the server
    log names), so a retrieval's answer and trace match the log; outside a request (a
    task, a command, a test calling the service) a fresh ``req_<hex>``."""
    current = current_request_id()
    return current if current != NO_REQUEST else f"req_{uuid.uuid4().hex}"


@dataclass
class ServeRun:
    """One retrieve/graph call, accumulated into the response and the trace."""

    workspace: Workspace
    operation: str
    query: str
    domain_pack: str
    policy: VerificationPolicy
    max_claims: int
    depth: str
    trace_id: uuid.UUID = field(default_factory=uuid.uuid4)
    request_id: str = field(default_factory=serve_request_id)
    degraded_code: str | None = None
    considered: dict[int, Considered[sel.ServedClaim]] = field(default_factory=dict)
    seeds: list[Considered[sel.ServedClaim]] = field(default_factory=list)
    expansion: list[dict[str, Any]] = field(default_factory=list)
    edges: list[tuple[int, int, str, float]] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    started: float = field(default_factory=time.perf_counter)
    included: list[Considered[sel.ServedClaim]] = field(default_factory=list)
    ranked: list[Considered[sel.ServedClaim]] = field(default_factory=list)
    # Claims the vector seeding loaded with their seeds (``sel.served_seeds_by_vector``).
    loaded: dict[int, sel.ServedClaim] = field(default_factory=dict)
    # The read-time re-check of each loaded supported/inferred claim (``load``).
    checks: list[tuple[sel.ServedClaim, BindingCheck]] = field(default_factory=list)

    @classmethod
    def from_request(
        cls,
        *,
        workspace: Workspace,
        operation: str,
        query: str,
        depth: str,
        max_claims: int,
        require_verified: bool,
        verification_policy: dict[str, Any] | None,
        domain_pack: str,
    ) -> ServeRun:
        """A run for one request; an unknown ``depth`` is a :class:`RetrievalInputError`."""
        if depth not in DEPTH_HOPS:
            raise RetrievalInputError(
                "invalid_depth", f"depth must be one of {sorted(DEPTH_HOPS)}."
            )
        return cls(
            workspace=workspace,
            operation=operation,
            query=query,
            domain_pack=domain_pack or "",
            policy=VerificationPolicy.from_request(
                policy=verification_policy, require_verified=require_verified
            ),
            max_claims=max_claims,
            depth=depth,
        )

    def mark(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.timing[f"{name}_ms"] = round((now - since) * 1000, 3)
        return now

    def degrade(self, code: str) -> None:
        self.degraded_code = self.degraded_code or code

    # seeds ---------------------------------------------------------------------------

    def add_seeds(self, scored: Sequence[tuple[int, float]]) -> None:
        for pk, score in scored:
            if pk not in self.considered:
                item: Considered[sel.ServedClaim] = Considered(
                    pk=pk, score=float(score), hop_depth=0
                )
                self.considered[pk] = item
                self.seeds.append(item)

    def seed_by_query(self, *, limit: int) -> None:
        limit = max(MIN_SEEDS, min(limit, MAX_SEEDS))
        t = time.perf_counter()
        try:
            vector = embeddings.embed_text(self.query)
        except embeddings.EmbeddingUnavailable:
            t = self.mark("embedding", t)
            self.degrade("embedding_unavailable")
            scored = sel.claim_seeds_by_text(
                workspace=self.workspace,
                query=self.query,
                limit=limit,
                domain_pack=self.domain_pack,
            )
            self.mark("lexical_search", t)
        else:
            t = self.mark("embedding", t)
            # The seeds come with what serving needs of them (one statement); the
            # load step then reads only claims that expansion adds.
            seeds = sel.served_seeds_by_vector(
                workspace=self.workspace, vector=vector, limit=limit, domain_pack=self.domain_pack
            )
            self.mark("vector_search_and_load", t)
            self.loaded.update((claim.pk, claim) for claim, _score in seeds)
            scored = [(claim.pk, score) for claim, score in seeds]
        self.add_seeds(scored)

    def seed_by_ids(self, public_ids: Sequence[str]) -> list[str]:
        """Seed from claim ids (score 1); returns the ids that were not found."""
        found = sel.claim_pks_by_public_id(workspace=self.workspace, public_ids=public_ids)
        self.add_seeds([(found[pid], 1.0) for pid in public_ids if pid in found])
        return [pid for pid in public_ids if pid not in found]

    # expansion -------------------------------------------------------------------------

    def expand(self, hops: int) -> None:
        frontier = [item.pk for item in self.seeds]
        for depth in range(1, hops + 1):
            if not frontier or len(self.considered) >= MAX_EXPANDED:
                break
            edges = sel.relations_touching(workspace=self.workspace, claim_pks=frontier)
            frontier_set = set(frontier)
            added: list[int] = []
            kinds: Counter[str] = Counter()
            for a, b, kind, confidence in edges:
                kinds[kind] += 1
                for here, there in ((a, b), (b, a)):
                    if here not in frontier_set or there in self.considered:
                        continue
                    if len(self.considered) >= MAX_EXPANDED:
                        break
                    parent = self.considered[here]
                    step = {
                        "from": here,
                        "to": there,
                        "kind": kind,
                        "confidence": confidence,
                    }
                    item: Considered[sel.ServedClaim] = Considered(
                        pk=there,
                        score=parent.score * confidence * HOP_DECAY,
                        hop_depth=depth,
                        edge_path=[*parent.edge_path, step],
                    )
                    self.considered[there] = item
                    added.append(there)
            self.edges.extend(edges)
            self.expansion.append(
                {
                    "depth": depth,
                    "claims": added,  # pks; rendered to public ids in the trace
                    "relations_traversed": len(edges),
                    "edge_types": dict(sorted(kinds.items())),
                }
            )
            frontier = added

    # load, re-check, rank, gate ------------------------------------------------------

    def load(self) -> None:
        """The considered claims as :class:`sel.ServedClaim`: one query for their active
        bindings, latest verdicts and, for supported/inferred claims, the current
        version's hash and its text at the bound offsets (none for the claims the vector
        seeding already loaded); ``self.stale`` then says whether the re-check will
        write."""
        t = time.perf_counter()
        claims = [c for pk, c in self.loaded.items() if pk in self.considered]
        missing = [pk for pk in self.considered if pk not in self.loaded]
        if missing:
            more, _versions = sel.served_claims(workspace=self.workspace, claim_pks=missing)
            claims.extend(more)
            self.mark("load", t)
        # Key order, as one load returns them: demotions lock claim rows in that order.
        claims.sort(key=lambda c: c.pk)
        for claim in claims:
            self.considered[claim.pk].claim = claim
        # A claim unpublished between seeding and loading is not considered at all.
        self.considered = {pk: c for pk, c in self.considered.items() if c.claim is not None}
        self.seeds = [s for s in self.seeds if s.claim is not None]
        self.checks = [(c, served_claim_check(c)) for c in _rechecked(claims)]

    @property
    def stale(self) -> bool:
        """Whether the read-time re-check may demote (write) a claim (after ``load``)."""
        return any(check.status != "fresh" for _claim, check in self.checks)

    def recheck(self) -> None:
        """Demote the loaded claims whose re-check is not fresh; score every one."""
        t = time.perf_counter()
        demoted = _demote_stale(self.checks)
        self.mark("recheck", t)
        for item in self.considered.values():
            item.demoted_from = demoted.get(item.pk, "")
            item.trust_score = _trust(item.claim)  # type: ignore[arg-type]

    def select(self) -> None:
        ranked = rank(list(self.considered.values()))
        gate(ranked, self.policy, self.max_claims)
        self.included = [c for c in ranked if c.included]
        self.ranked = ranked

    # output --------------------------------------------------------------------------

    def envelopes(self) -> list[dict[str, Any]]:
        tid = str(self.trace_id)
        return [claim_envelope(claim=c.claim, trace_id=tid) for c in self.included]  # type: ignore[arg-type]

    def public_id(self, pk: int) -> str:
        item = self.considered.get(pk)
        if item is not None and item.claim is not None:
            return item.claim.public_id
        return str(pk)

    def _path(self, path: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {**step, "from": self.public_id(step["from"]), "to": self.public_id(step["to"])}
            for step in path
        ]

    def document(self) -> dict[str, Any]:
        excluded = exclusion_counts(self.ranked)
        filtered = sum(n for r, n in excluded.items() if r != "budget")
        return {
            "version": TRACE_DOCUMENT_VERSION,
            "trace_id": str(self.trace_id),
            "request_id": self.request_id,
            "operation": self.operation,
            "query": self.query,
            "workspace": self.workspace.slug,
            "domain_pack": self.domain_pack,
            "created_at": iso_millis(timezone.now()),
            "caller": caller_document(),
            "verification_policy": self.policy.to_dict(),
            "depth": self.depth,
            "max_claims": self.max_claims,
            "retrieval_degraded_code": self.degraded_code,
            "seeds": [
                {
                    "claim_id": s.claim.public_id,  # type: ignore[union-attr]
                    "text": s.claim.text[:SEED_TEXT_CHARS],  # type: ignore[union-attr]
                    "source_ref": s.claim.source.ref,  # type: ignore[union-attr]
                    "score": round(s.score, 6),
                }
                for s in self.seeds
            ],
            "expansion": [
                {**step, "claims": [self.public_id(pk) for pk in step["claims"]]}
                for step in self.expansion
            ],
            "result": {
                "considered": len(self.ranked),
                "retrieved": len(self.included),
                "filtered": filtered,
                "truncated": excluded["budget"],
                "demoted": sum(1 for c in self.ranked if c.demoted_from),
                "excluded_by_reason": excluded,
            },
            "claims": [
                {
                    "claim_id": c.claim.public_id,  # type: ignore[union-attr]
                    "verification_state": c.claim.state,  # type: ignore[union-attr]
                    "trust_score": c.trust_score,
                    "included": c.included,
                    "exclusion_reason": c.exclusion_reason or None,
                    "exclusion_detail": c.exclusion_detail or None,
                    "demoted_from": c.demoted_from or None,
                    "hop_depth": c.hop_depth,
                    "edge_path": self._path(c.edge_path),
                    "score": round(c.score, 6),
                }
                for c in self.ranked
            ],
            "timing": self.timing,
            **self.extra,
        }

    def _trace(self) -> TraceWrite:
        """The arguments of ``trace_record``/``trace_recording`` for this run, its total
        time taken now."""
        self.timing["total_ms"] = round((time.perf_counter() - self.started) * 1000, 3)
        return TraceWrite(
            workspace=self.workspace,
            trace_id=self.trace_id,
            operation=self.operation,
            query=self.query,
            domain_pack=self.domain_pack,
            document=self.document(),
            considered=[
                TraceClaimRow(
                    claim_pk=c.pk,
                    included=c.included,
                    exclusion_reason=c.exclusion_reason,
                    verification_state=c.claim.state,  # type: ignore[union-attr]
                )
                for c in self.ranked
            ],
        )

    def record(self) -> None:
        trace_record(**self._trace())

    @contextmanager
    def recording(self) -> Iterator[None]:
        """``record``, the ``with`` block running while the database writes the trace
        (``trace_recording``)."""
        with trace_recording(**self._trace()):
            yield

    def metadata(self, served: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {
            "verification_summary": state_summary(served),
            "retrieval_degraded_code": self.degraded_code,
            "verification_policy": self.policy.to_dict(),
            "depth": self.depth,
            "considered": len(self.ranked),
            "excluded": exclusion_counts(self.ranked),
            "demoted": sum(1 for c in self.ranked if c.demoted_from),
        }

    def gather(self) -> None:
        """Expansion and the load once seeds are in place: the run's reads."""
        t = time.perf_counter()
        self.expand(DEPTH_HOPS[self.depth])
        self.mark("expansion", t)
        self.load()

    def decide(self) -> None:
        """Re-check (its demotions are the run's only writes before the trace), ranking
        and gate, after ``gather``."""
        t = time.perf_counter()
        self.recheck()
        self.select()
        self.mark("ranking", t)
        if not self.considered:
            self.degrade("no_claims")

    def run(self) -> None:
        """Expansion, re-check, ranking and gate once seeds are in place."""
        self.gather()
        self.decide()


def context_retrieve(
    *,
    workspace: Workspace,
    query: str,
    depth: str = "quick",
    max_claims: int = 20,
    require_verified: bool = False,
    verification_policy: dict[str, Any] | None = None,
    seed_claim_id: str | None = None,
    domain_pack: str = "",
) -> dict[str, Any]:
    """``POST /connect/v1/retrieve``: envelopes, context block, summary and a trace.

    The reads run outside a transaction of ours (under READ COMMITTED each statement
    reads its own snapshot inside one too). The writes do not: read-time demotions and
    the trace go into one transaction when the re-check finds a stale claim; otherwise
    the trace is the call's only write, in a transaction of its own whose ``BEGIN`` and
    ``COMMIT`` travel in the trace's pipeline (``trace_recording``), which spares the call
    the two round trips a Django transaction costs (paired timing at 1,000,000 claims:
    0.38 ms). Either way the trace is committed before the answer leaves, and not at
    all if building the answer fails."""
    run = ServeRun.from_request(
        workspace=workspace,
        operation="retrieve",
        query=query,
        depth=depth,
        max_claims=max_claims,
        require_verified=require_verified,
        verification_policy=verification_policy,
        domain_pack=domain_pack,
    )
    t = time.perf_counter()
    if seed_claim_id:
        if run.seed_by_ids([seed_claim_id]):
            run.degrade("seed_claim_not_found")
            run.seed_by_query(limit=max_claims * SEED_OVERFETCH)
    else:
        run.seed_by_query(limit=max_claims * SEED_OVERFETCH)
    run.mark("seed", t)
    run.gather()
    with transaction.atomic() if run.stale else nullcontext():
        run.decide()
        # The trace is sent first and the answer built while the database writes it, so
        # the trace's timing ends with the ranking (the envelopes are not in it).
        with run.recording():
            served = run.envelopes()
            return {
                "request_id": run.request_id,
                "trace_id": str(run.trace_id),
                "context_block": context_block(served),
                "verified_claims": served,
                "metadata": run.metadata(served),
            }
