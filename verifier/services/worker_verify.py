"""``POST /worker/verify`` (seed 001): one free-text claim verified against the whole
corpus of a workspace, with ranked, bound evidence.

Runtime path (``CorrectivePipeline.run`` in the seed): parse the claim and decompose it
into subclaims (``verifier.rag.decompose``, deterministic); build retrieval queries from
the claim and its subclaims; retrieve candidates from pgvector (published claims, each
bound to its exact source sentence, and the sentence index: source sentences bound to
themselves) and the knowledge graph (entities the claim names, relations of the nearest
claims, each with the tail of the relation that reached it); rank them
(``verifier.worker.ranking``); ask the Layer-2 judge (``verifier.engine.get_judge``) for
every top item's stance toward every subclaim — stances never come from overlap;
compute adaptive trust (``verifier.worker.trust``); build the verdict package
(``verifier.worker.verdict``).
The claim is then stored with origin ``worker`` and goes through the one chain (bind in
the source of its best evidence, judge, state), so it appears in the review queue and
the audit console. While trust is insufficient and a search provider is configured
(off by default), web expansion searches, ingests new pages and re-ranks, stopping
early once trust is sufficient (``verifier.services.worker_web``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from verifier import embeddings
from verifier.embeddings import EmbeddingUnavailable, embed_text
from verifier.engine import get_judge
from verifier.errors import ApplicationError
from verifier.judges import Judge
from verifier.judges.base import JudgeItem, item_context
from verifier.judges.coverage import judge_items
from verifier.models import Claim, ClaimOrigin, Source, Workspace
from verifier.pipeline.relating import entity_mentions
from verifier.rag.decompose import decompose
from verifier.selectors import retrieval as retrieval_sel
from verifier.selectors.claims import claim_stored_vectors
from verifier.selectors.sentences import sentence_stored_vectors
from verifier.selectors.worker import (
    CLAIM,
    EvidenceRow,
    worker_cached_claim,
    worker_claims_by_entities,
    worker_evidence_rows,
    worker_relation_tails,
    worker_sentence_rows,
)
from verifier.services import worker_web
from verifier.services.enqueue import WORKER_CLAIM_VERIFY, task_enqueue_on_commit
from verifier.services.judging import _WithVectors
from verifier.services.relation_verify import chunks_verify
from verifier.services.traces import DoorTrace, TracedClaim, TraceSteps, trace_door_record
from verifier.services.verification import claims_verify
from verifier.worker import trust as trust_mod
from verifier.worker import verdict as verdict_mod
from verifier.worker.cache import CachedVerdict, cache_precheck
from verifier.worker.config import TRUST_POLICY_MODES, WorkerTuning, tuning_from
from verifier.worker.ranking import Candidate, Ranked, hybrid_rank
from verifier.worker.text import (
    ClaimFeatures,
    claim_features,
    claim_strictness,
    has_reporting,
    has_uncertainty,
    numbers,
)
from verifier.worker.web import canonical_url, search_queries, select_urls

MAX_CLAIM_CHARS = 2000
MAX_JOB_ID_CHARS = 200
TOP_K_MIN, TOP_K_MAX, TOP_K_DEFAULT = 1, 20, 5
MAX_SUBCLAIMS = 6
CANDIDATES_PER_QUERY = 20  # nearest claims per retrieval query
SENTENCES_PER_QUERY = 20  # nearest source sentences (sentence index) per retrieval query
KG_CANDIDATES = 20  # claims reached through the claim's entities
KG_RELATION_SEEDS = 5  # nearest claims whose graph relations are followed
# Credibility of an evidence claim from its verification state (its trust score, when
# the ingest computed one, takes precedence).
STATE_CREDIBILITY = {
    "supported": 0.9,
    "inferred": 0.7,
    "unverified": 0.5,
    "contradicted": 0.2,
    "excluded": 0.0,
}
# A source sentence no claim was bound to has never been verified: it counts as an
# unverified claim does.
SENTENCE_CREDIBILITY = STATE_CREDIBILITY["unverified"]


class WorkerInputError(ApplicationError, ValueError):
    """A worker verification request that is unusable (the API answers 400)."""


def worker_trust_policy_mode(requested: str | None = None) -> str:
    """The request's ``trust_policy_mode``, else ``settings.SPANPROOF_WORKER_TRUST_POLICY_MODE``
    (env ``SPANPROOF_WORKER_TRUST_POLICY_MODE``, default ``adaptive``)."""
    mode = requested or getattr(settings, "SPANPROOF_WORKER_TRUST_POLICY_MODE", "adaptive")
    if mode not in TRUST_POLICY_MODES:
        raise WorkerInputError(
            "invalid_trust_policy_mode",
            f"trust_policy_mode must be one of {', '.join(TRUST_POLICY_MODES)}.",
            {"allowed": list(TRUST_POLICY_MODES)},
        )
    return str(mode)


def worker_tuning() -> WorkerTuning:
    """The tuning variables from ``settings.SPANPROOF_WORKER_TUNING`` (env-filled)."""
    return tuning_from(dict(getattr(settings, "SPANPROOF_WORKER_TUNING", {}) or {}))


def subclaims_of(claim: str) -> list[str]:
    """The claim's atomic parts (at most ``MAX_SUBCLAIMS``), the whole claim when it
    does not split."""
    parts: list[str] = []
    for sentence in decompose(claim):
        for atom in sentence.atoms:
            text = atom.text.strip()
            if text and text not in parts:
                parts.append(text)
    return parts[:MAX_SUBCLAIMS] or [claim.strip()]


def source_domain(row: EvidenceRow) -> str:
    """The host of a URL-like ref or citation, else the source ref."""
    for value in (row.source_ref, row.source_citation):
        host = urlsplit(value).hostname if "://" in value else None
        if host:
            return host.removeprefix("www.")
    return row.source_ref


def credibility(row: EvidenceRow) -> float:
    if row.kind != CLAIM:
        return SENTENCE_CREDIBILITY
    if row.trust_score is not None:
        return row.trust_score / 100
    return STATE_CREDIBILITY.get(row.state, 0.5)


@dataclass
class _Retrieved:
    sem: dict[int, float]  # claim pk → cosine to the nearest query
    kg: dict[int, float]  # claim pk → graph signal
    kg_object: dict[int, str]  # claim pk → tail(s) of the graph relation that reached it
    multihop: set[int]  # claim pks the graph reached only through another claim's relation
    backfill: set[int]
    vector_available: bool
    sentence_sem: dict[int, float]  # source sentence pk → cosine to the nearest query


def _retrieve(
    workspace: Workspace, queries: Sequence[str], features: ClaimFeatures, domain: str
) -> tuple[_Retrieved, list[Any]]:
    pack = "" if domain == "general" else domain
    sem: dict[int, float] = {}
    sentence_sem: dict[int, float] = {}
    backfill: set[int] = set()
    vectors: list[Any] = []
    available = True
    try:
        # One query at a time on the single-thread query path (``embed_text``): a batch
        # through ``embed_texts`` spreads over every core and, on a busy machine, is
        # ~100× slower for the few short texts a claim gives.
        vectors = [embed_text(query) for query in queries]
        for vector in vectors:
            for pk, similarity in retrieval_sel.claim_seeds_by_vector(
                workspace=workspace, vector=vector, limit=CANDIDATES_PER_QUERY, domain_pack=pack
            ):
                sem[pk] = max(sem.get(pk, 0.0), similarity)
            for pk, similarity in retrieval_sel.sentence_seeds_by_vector(
                workspace=workspace, vector=vector, limit=SENTENCES_PER_QUERY, domain_pack=pack
            ):
                sentence_sem[pk] = max(sentence_sem.get(pk, 0.0), similarity)
    except EmbeddingUnavailable:
        # Without a query vector the sentence index cannot be searched; claims are
        # found by their words.
        available = False
        for query in queries:
            for pk, _score in retrieval_sel.claim_seeds_by_text(
                workspace=workspace, query=query, limit=CANDIDATES_PER_QUERY, domain_pack=pack
            ):
                sem.setdefault(pk, 0.0)
                backfill.add(pk)
    kg: dict[int, float] = {}
    names = entity_mentions(features.text)
    if names:
        reached = worker_claims_by_entities(
            workspace=workspace, normalized_names=names, limit=KG_CANDIDATES
        )
        for pk, found in reached.items():
            kg[pk] = len(found) / len(names)
    direct = set(kg)
    seeds = sorted(sem, key=lambda pk: -sem[pk])[:KG_RELATION_SEEDS]
    for a, b, _kind, confidence in retrieval_sel.relations_touching(
        workspace=workspace, claim_pks=seeds
    ):
        other = b if a in seeds else a
        kg[other] = max(kg.get(other, 0.0), float(confidence))
    tails = worker_relation_tails(workspace=workspace, claim_pks=kg, normalized_names=names)
    kg_object = {pk: ", ".join(sorted(found)) for pk, found in tails.items()}
    multihop = set(kg) - direct
    return _Retrieved(sem, kg, kg_object, multihop, backfill, available, sentence_sem), vectors


@dataclass(frozen=True)
class _SentenceChunk:
    """A source sentence of the sentence index as the chunk prefilter reads it: its text
    and its cosine to the nearest retrieval query (``Chunk.similarity``)."""

    row: EvidenceRow
    similarity: float

    @property
    def text(self) -> str:
        return self.row.quote


def _chunk_prefilter(
    workspace: Workspace,
    sentences: Sequence[EvidenceRow],
    got: _Retrieved,
    claim: str,
    vectors: Sequence[Any],
    judge: Judge,
) -> tuple[list[EvidenceRow], dict[str, Any]]:
    """Seed 004's chunk prefilter on the chunk pool of this search (the source
    sentences the vector search found): cosine ≥ ``chunk_vector_threshold_accept``
    kept, < ``chunk_vector_threshold_reject`` cut, VoG (the worker's judge, asked
    whether the sentence supports the claim) for the rest; recorded as one
    ``ChunkVerificationEvent``. Returns the kept rows and the summary for the response."""
    if not sentences:
        return [], {"chunks": 0}
    asked: Judge = judge
    if vectors and getattr(judge, "accepts_vectors", False):
        known = {claim: vectors[0]}
        stored = sentence_stored_vectors(
            sentence_pks=[row.sentence_pk for row in sentences if row.sentence_pk is not None]
        )
        for row in sentences:
            if row.sentence_pk in stored:
                known[row.quote] = stored[row.sentence_pk]
        asked = _WithVectors(judge, known)
    chunks = [
        _SentenceChunk(row, got.sentence_sem.get(row.sentence_pk or 0, 0.0)) for row in sentences
    ]
    result = chunks_verify(workspace=workspace, chunks=chunks, query=claim, judge=asked)
    summary = {
        "chunks": len(chunks),
        "kept": len(result["filtered"]),
        "verified": len(result["verified"]),
        "rejected_vector": len(result["rejected_vector"]),
        "rejected_vog": len(result["rejected_vog"]),
        "vog_scores": [round(v, 4) for v in result["vog_scores"]],
    }
    return [c.row for c in result["filtered"]], summary


def _evidence_rows(
    workspace: Workspace,
    got: _Retrieved,
    domain_pack: str,
    prefilter: Callable[[list[EvidenceRow]], list[EvidenceRow]],
) -> tuple[list[EvidenceRow], dict[tuple[int, int, int], float]]:
    """The claim rows, then the sentence rows whose span no claim row is bound to that
    pass ``prefilter`` (the chunk prefilter), and {span: cosine} of the sentences
    dropped for a claim bound to the same span (that claim takes the sentence's cosine
    when it is higher than its own)."""
    rows = worker_evidence_rows(
        workspace=workspace, claim_pks=[*got.sem, *got.kg], domain_pack=domain_pack
    )
    bound = {row.span for row in rows}
    span_sem: dict[tuple[int, int, int], float] = {}
    chunks: list[EvidenceRow] = []
    for row in worker_sentence_rows(
        workspace=workspace, sentence_pks=got.sentence_sem, domain_pack=domain_pack
    ):
        similarity = got.sentence_sem[row.sentence_pk or 0]
        if row.span in bound:
            span_sem[row.span] = max(span_sem.get(row.span, 0.0), similarity)
        else:
            chunks.append(row)
    rows.extend(prefilter(chunks))
    return rows, span_sem


def _candidates(
    rows: Sequence[EvidenceRow],
    got: _Retrieved,
    span_sem: dict[tuple[int, int, int], float],
) -> list[Candidate]:
    """Claims carry their vector, graph and backfill signals; a source sentence only its
    cosine (no graph signal: it is never a KG candidate)."""
    now = timezone.now()
    out = []
    for row in rows:
        age = (now - row.version_created_at).total_seconds() / 86400
        if row.kind != CLAIM:
            sem = got.sentence_sem.get(row.sentence_pk or 0, 0.0)
            out.append(
                Candidate(
                    key=row.public_id,
                    text=row.quote,
                    sem_raw=sem,
                    credibility=credibility(row),
                    days_since_publish=age,
                )
            )
            continue
        pk = row.claim_pk or 0
        out.append(
            Candidate(
                key=row.public_id,
                text=row.quote,
                sem_raw=max(got.sem.get(pk, 0.0), span_sem.get(row.span, 0.0)),
                kg_raw=got.kg.get(pk, 0.0),
                is_kg=pk in got.kg,
                credibility=credibility(row),
                days_since_publish=age,
                backfill=pk in got.backfill,
                relation_object=got.kg_object.get(pk, ""),
                multihop=pk in got.multihop,
            )
        )
    return out


def _stance_label(results: dict[str, Any], key: str) -> trust_mod.Stance:
    result = results[key]
    return trust_mod.Stance(result.label, float(result.confidence))


@dataclass
class _Found:
    queries: list[str]
    got: _Retrieved
    vectors: list[Any]
    rows: list[EvidenceRow]
    by_key: dict[str, EvidenceRow]
    ranked_all: list[Ranked]
    ranked: list[Ranked]
    chunk_prefilter: dict[str, Any]


def _retrieve_and_rank(
    workspace: Workspace,
    queries: Sequence[str],
    features: ClaimFeatures,
    domain: str,
    top_k: int,
    tuning: WorkerTuning,
    judge: Judge,
) -> _Found:
    got, vectors = _retrieve(workspace, queries, features, domain)
    summary: dict[str, Any] = {"chunks": 0}

    def prefilter(sentences: list[EvidenceRow]) -> list[EvidenceRow]:
        kept, summary_ = _chunk_prefilter(workspace, sentences, got, features.text, vectors, judge)
        summary.update(summary_)
        return kept

    # Every path (vectors, sentences, entities, relations) is held to the requested
    # domain here.
    rows, span_sem = _evidence_rows(
        workspace, got, "" if domain == "general" else domain, prefilter
    )
    ranked_all = hybrid_rank(features, _candidates(rows, got, span_sem), tuning=tuning)
    return _Found(
        list(queries),
        got,
        vectors,
        rows,
        {row.public_id: row for row in rows},
        ranked_all,
        ranked_all[:top_k],
        summary,
    )


def _judge_and_trust(
    judge: Judge, subclaims: Sequence[str], found: _Found, mode: str
) -> tuple[list[trust_mod.TrustEvidence], trust_mod.AdaptiveTrust]:
    """Layer 2: the judge's stance of every top item toward every subclaim, then
    adaptive trust over them."""
    items = [
        JudgeItem(
            key=f"{i}:{j}",
            claim=sub,
            spans=(r.candidate.text,),
            context=item_context(title=found.by_key[r.key].source_title, previous=""),
        )
        for i, sub in enumerate(subclaims)
        for j, r in enumerate(found.ranked)
    ]
    asked: Judge = judge
    if getattr(judge, "accepts_vectors", False):
        # The judge may reuse embeddings already at hand: the queries' (claim and
        # subclaims), each evidence claim's stored one where its text is its quote and
        # each source sentence's from the sentence index.
        vectors = dict(zip(found.queries, found.vectors, strict=False))
        top = [found.by_key[r.key] for r in found.ranked]
        stored = claim_stored_vectors(
            claim_pks=[row.claim_pk for row in top if row.claim_pk is not None]
        )
        sentences = sentence_stored_vectors(
            sentence_pks=[row.sentence_pk for row in top if row.sentence_pk is not None]
        )
        for row in top:
            if row.claim_pk in stored and row.text == row.quote:
                vectors[row.quote] = stored[row.claim_pk]
            elif row.sentence_pk in sentences:
                vectors[row.quote] = sentences[row.sentence_pk]
        asked = _WithVectors(judge, vectors)
    results = {res.key: res for res in judge_items(asked, items)} if items else {}
    evidence_trust = [
        trust_mod.TrustEvidence(
            key=r.key,
            domain=source_domain(found.by_key[r.key]),
            relevance=r.score,
            trust=r.score,
            semantic=r.candidate.sem_raw,
            stances={i: _stance_label(results, f"{i}:{j}") for i in range(len(subclaims))},
        )
        for j, r in enumerate(found.ranked)
    ]
    return evidence_trust, trust_mod.compute_adaptive_trust(
        len(subclaims), evidence_trust, confidence_mode=mode == "confidence"
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
    started = time.perf_counter()
    text = " ".join((claim or "").split())
    if not str(job_id or "").strip():
        raise WorkerInputError("invalid_job_id", "job_id is required.")
    if len(str(job_id)) > MAX_JOB_ID_CHARS:
        raise WorkerInputError("invalid_job_id", f"job_id is longer than {MAX_JOB_ID_CHARS}.")
    if not text:
        raise WorkerInputError("empty_claim", "claim is required and must not be blank.")
    if len(text) > MAX_CLAIM_CHARS:
        raise WorkerInputError(
            "claim_too_long",
            f"claim is longer than {MAX_CLAIM_CHARS} characters.",
            {"limit": MAX_CLAIM_CHARS},
        )
    if not TOP_K_MIN <= int(top_k) <= TOP_K_MAX:
        raise WorkerInputError(
            "invalid_top_k",
            f"top_k must be between {TOP_K_MIN} and {TOP_K_MAX}.",
            {"min": TOP_K_MIN, "max": TOP_K_MAX},
        )
    mode = worker_trust_policy_mode(trust_policy_mode)
    tuning = worker_tuning()
    judge = judge or get_judge()
    features = claim_features(text)
    subclaims = subclaims_of(text)
    queries = list(dict.fromkeys([text, *subclaims]))
    timing: dict[str, float] = {}
    steps = TraceSteps()
    trace = DoorTrace(
        operation="worker_verify",
        query=text,
        request={
            "job_id": str(job_id),
            "room_id": room_id,
            "source": source,
            "domain": domain,
            "top_k": int(top_k),
        },
        judge={"model": judge.model_id, "family": judge.family},
        domain_pack="" if domain == "general" else domain,
    )

    t0 = time.perf_counter()
    with steps.step("retrieve_and_rank", queries=len(queries)) as detail:
        found = _retrieve_and_rank(workspace, queries, features, domain, top_k, tuning, judge)
        detail.update(candidates=len(found.rows), ranked=len(found.ranked))
    timing["retrieve_rank_ms"] = (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()
    with steps.step("judge", items=len(subclaims) * len(found.ranked)):
        evidence_trust, adaptive = _judge_and_trust(judge, subclaims, found, mode)
    timing["judge_ms"] = (time.perf_counter() - t0) * 1000

    # Cache precheck, only when adaptive trust is sufficient (seed order): the same
    # claim, verified before against exactly this evidence.
    cached = None
    with steps.step("cache_precheck") as detail:
        stored_row = None
        if adaptive.sufficient:
            stored_row = worker_cached_claim(
                workspace=workspace, text=text, domain=domain, top_k=int(top_k)
            )
        if stored_row is not None:
            public_id, state, created_at, stored_result = stored_row
            age = (timezone.now() - created_at).total_seconds()
            cached = CachedVerdict(public_id, state, age, stored_result)
        usable, cache_reason = cache_precheck(
            cached,
            evidence_keys=[r.key for r in found.ranked],
            judge_model=judge.model_id,
            trust_sufficient=adaptive.sufficient,
            trust_policy_mode=mode,
        )
        detail["reason"] = cache_reason
    if usable and cached is not None:
        timing["total_ms"] = (time.perf_counter() - started) * 1000
        trace.result = {
            "status": "completed_from_cache",
            "stored_claim_id": cached.claim_id,
            "verdict": cached.result.get("verdict"),
        }
        _trace_worker(workspace, trace, steps, found, cached_claim=cached.claim_id)
        return {
            **cached.result,
            "job_id": str(job_id),
            "room_id": room_id,
            "source": source,
            "status": "completed_from_cache",
            "cache": {"reason": cache_reason, "age_seconds": round(cached.age_seconds, 1)},
            "stored_claim_id": cached.claim_id,
            "timing_ms": {k: round(v, 2) for k, v in timing.items()},
            "trace_id": str(trace.trace_id),
        }

    # Web expansion while trust is insufficient (off unless a provider is configured).
    web: dict[str, Any] = {"enabled": False, "queries": [], "ingested": [], "errors": []}
    config = worker_web.web_config()
    provider = worker_web.web_provider(config)
    if provider is not None and not adaptive.sufficient:
        t0 = time.perf_counter()
        with steps.step("web_expansion"):
            web["enabled"] = True
            processed: set[str] = set()
            for query in search_queries(text, subclaims, config.max_queries):
                step: dict[str, Any] = {"query": query, "urls": []}
                web["queries"].append(step)
                try:
                    hits = provider.search(query, limit=config.urls_per_query * 2)
                except worker_web.WebFetchError as exc:
                    web["errors"].append({"query": query, "error": str(exc)})
                    continue
                urls = select_urls(hits, processed, config.urls_per_query)
                processed.update(urls)
                done = worker_web.processed_urls(workspace=workspace, urls=urls)
                titles = {canonical_url(h.url): h.title for h in hits}
                for url in urls:
                    if url in done:
                        continue  # already ingested by an earlier verification
                    try:
                        worker_web.web_page_ingest(
                            workspace=workspace, url=url, title=titles.get(url, ""), config=config
                        )
                    except (worker_web.WebFetchError, ValueError) as exc:
                        web["errors"].append({"url": url, "error": str(exc)})
                        continue
                    step["urls"].append(url)
                    web["ingested"].append(url)
                if not step["urls"]:
                    continue
                found = _retrieve_and_rank(
                    workspace, queries, features, domain, top_k, tuning, judge
                )
                evidence_trust, adaptive = _judge_and_trust(judge, subclaims, found, mode)
                if adaptive.sufficient:
                    web["stopped"] = "trust_sufficient"
                    break
        timing["web_ms"] = (time.perf_counter() - t0) * 1000
    got, vectors, rows, by_key = found.got, found.vectors, found.rows, found.by_key
    ranked_all, ranked = found.ranked_all, found.ranked

    with steps.step("verdict"):
        package = _verdict_package(
            text=text,
            features=features,
            subclaims=subclaims,
            ranked=ranked,
            evidence_trust=evidence_trust,
            adaptive=adaptive,
            tuning=tuning,
        )
    evidence = [
        _evidence_item(r, by_key[r.key], evidence_trust[j], subclaims) for j, r in enumerate(ranked)
    ]
    scores = [r.score for r in ranked]
    sources_used = {"vdb": bool(got.sem) or bool(got.sentence_sem), "kg": bool(got.kg)}
    data_source = "+".join(k for k, v in sources_used.items() if v) or "none"

    result: dict[str, Any] = {
        "job_id": str(job_id),
        "room_id": room_id,
        "source": source,
        "domain": domain,
        "claim": text,
        "status": "completed",
        "cache": {"reason": cache_reason, "age_seconds": None},
        **package,
        "evidence": evidence,
        "top_ranking_score": round(max(scores), 4) if scores else 0.0,
        "avg_ranking_score": round(sum(scores) / len(scores), 4) if scores else 0.0,
        "trust_policy_mode": mode,
        "trust_metric_value": round(adaptive.trust_post, 4),
        "trust_threshold_met": adaptive.sufficient,
        "trust_route": adaptive.route,
        "trust_verdict_state": adaptive.verdict_state,
        "coverage": round(adaptive.coverage, 4),
        "diversity": round(adaptive.diversity, 4),
        "agreement": round(adaptive.agreement, 4),
        "trust_post_adaptive": round(adaptive.trust_post, 4),
        "trust_post_fixed": round(adaptive.trust_post_fixed, 4),
        "data_source": data_source,
        "used_web_search": bool(web["ingested"]),
        "web_expansion": web,
        "vdb_signal_count": sum(1 for r in ranked_all if r.candidate.sem_raw > 0),
        "kg_signal_count": sum(1 for r in ranked_all if r.candidate.kg_raw > 0),
        "candidates_considered": len(rows),
        "sentence_candidates": sum(1 for row in rows if row.kind != CLAIM),
        "candidates_ranked": len(ranked_all),
        "chunk_prefilter": found.chunk_prefilter,
        "retrieval_degraded": not got.vector_available,
        "judge": {"model_id": judge.model_id, "family": judge.family},
    }
    stored_id = None
    if store and ranked:
        with steps.step("store_claim"):
            stored_id = _store_claim(
                workspace=workspace,
                text=text,
                vector=_stored_vector(text, vectors),
                ranked=ranked,
                rows=by_key,
                evidence_trust=evidence_trust,
                source=source,
                metadata={
                    "job_id": str(job_id),
                    "room_id": room_id,
                    "source": source,
                    "domain": domain,
                    "top_k": int(top_k),
                    "trust_policy_mode": mode,
                    "verdict": package["verdict"],
                    "verdict_confidence": package["verdict_confidence"],
                    "truthfulness_percent": package["truthfulness_percent"],
                    "evidence": [e["id"] for e in evidence],
                    "worker_result": result,
                },
                actor=actor,
            )
    trace.result = {
        "status": "completed",
        "verdict": package["verdict"],
        "verdict_confidence": package["verdict_confidence"],
        "truthfulness_percent": package["truthfulness_percent"],
        "stored_claim_id": stored_id,
    }
    _trace_worker(
        workspace, trace, steps, found, evidence_trust=evidence_trust, stored_claim=stored_id
    )
    timing["total_ms"] = (time.perf_counter() - started) * 1000
    return {
        **result,
        "stored_claim_id": stored_id,
        "timing_ms": {k: round(v, 2) for k, v in timing.items()},
        "trace_id": str(trace.trace_id),
    }


def _trace_worker(
    workspace: Workspace,
    trace: DoorTrace,
    steps: TraceSteps,
    found: _Found,
    *,
    evidence_trust: Sequence[trust_mod.TrustEvidence] = (),
    stored_claim: str | None = None,
    cached_claim: str | None = None,
) -> None:
    """The call's trace: the evidence it ranked (claims and sentences, the top ones used,
    the rest considered) with their spans, and the claim it stored or answered from."""
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
            trust = stances.get(r.key)
            trace.spans.append(
                {
                    "evidence_id": row.public_id,
                    "kind": row.kind,
                    "source_ref": row.source_ref,
                    "source_hash": row.source_hash,
                    "start": row.start,
                    "end": row.end,
                    "quote": row.quote,
                    "match": row.match,
                    "ranking_score": round(r.score, 4),
                    "stances": [s.label for s in trust.stances.values()] if trust else [],
                }
            )
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


def _verdict_package(
    *,
    text: str,
    features: ClaimFeatures,
    subclaims: Sequence[str],
    ranked: Sequence[Ranked],
    evidence_trust: Sequence[trust_mod.TrustEvidence],
    adaptive: trust_mod.AdaptiveTrust,
    tuning: WorkerTuning,
) -> dict[str, Any]:
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
    statuses = tuple(verdict_mod.segment_status(s) for s in signals)
    n = len(statuses)
    contradict_ratio = sum(1 for s in statuses if s in verdict_mod.CONTRADICTING) / n
    supporting = [
        (r, e)
        for r, e in zip(ranked, evidence_trust, strict=True)
        if any(s.label == "entailed" for s in e.stances.values())
    ]
    contradicting = [e for e in evidence_trust if e.contradicts]
    top = supporting[0][0] if supporting else (ranked[0] if ranked else None)
    hedged = [
        r
        for r, _e in supporting
        if has_uncertainty(r.candidate.text) or has_reporting(r.candidate.text)
    ]
    strictness = claim_strictness(features)
    reconciled = verdict_mod.reconcile(
        verdict_mod.ReconcileInputs(
            proposed=verdict_mod.proposed_verdict(statuses),
            statuses=statuses,
            contradict_ratio=contradict_ratio,
            best_contradiction=max((s.best_contradict for s in signals), default=0.0),
            best_entailment=max((s.best_entail for s in signals), default=0.0),
            coverage=adaptive.coverage,
            diversity=adaptive.diversity,
            policy_sufficient=adaptive.sufficient,
            anchor_match=top.anchor_match if top else 0.0,
            predicate_match=top.claim_overlap if top else 0.0,
            hedged_share=len(hedged) / len(supporting) if supporting else 0.0,
            absolute=features.absolute,
            strictness=strictness,
        ),
        tuning,
    )
    verdict = reconciled.verdict
    numeric_support = None
    if features.numbers:
        stated = {n for r, _e in supporting for n in numbers(r.candidate.text)}
        numeric_support = len(features.numbers & stated) / len(features.numbers)
    truthfulness = verdict_mod.truthfulness_percent(
        statuses,
        diversity=adaptive.diversity,
        verdict=verdict,
        absolute=features.absolute,
        tuning=tuning,
        numeric_support=numeric_support,
    )
    confidence = verdict_mod.final_confidence(
        verdict_mod.ConfidenceInputs(
            truthfulness=truthfulness / 100,
            coverage=adaptive.coverage,
            agreement=adaptive.agreement,
            diversity=adaptive.diversity,
            trust_post=adaptive.trust_post,
            verdict=verdict,
            statuses=statuses,
            policy_sufficient=adaptive.sufficient,
            comparative=features.comparative,
            strictness=strictness,
            evidence_count=len(ranked),
            numeric_support=numeric_support,
            strong_contradiction=reconciled.strong_contradiction,
        ),
        tuning,
    )
    segments: list[verdict_mod.SegmentEvidence | None] = []
    for i in range(n):
        best = next(
            (
                (r, e)
                for r, e in zip(ranked, evidence_trust, strict=True)
                if e.stances[i].label in ("entailed", "contradicted")
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
                uncertain_or_reporting=has_uncertainty(r.candidate.text)
                or has_reporting(r.candidate.text),
            )
        )
    admissible = [
        e
        for e in evidence_trust
        if any(s.label in ("entailed", "contradicted") for s in e.stances.values())
    ]
    breakdown = [
        {
            "index": i,
            "subclaim": sub,
            "status": statuses[i],
            "unresolved": statuses[i] == "UNKNOWN",
            "weight": adaptive.details[i].weight,
        }
        for i, sub in enumerate(subclaims)
    ]
    evidence_map = [
        {
            "subclaim_index": i,
            "subclaim": sub,
            "status": statuses[i],
            "supporting": [e.key for e in evidence_trust if e.stances[i].label == "entailed"],
            "contradicting": [
                e.key for e in evidence_trust if e.stances[i].label == "contradicted"
            ],
            "support_strength": round(signals[i].best_entail, 4),
            "contradiction_strength": round(signals[i].best_contradict, 4),
        }
        for i, sub in enumerate(subclaims)
    ]
    return {
        "verdict": verdict,
        "verdict_confidence": confidence,
        # the seed's output names "confidence": the one final composite confidence
        "confidence": confidence,
        "truthfulness_percent": truthfulness,
        "numeric_support": None if numeric_support is None else round(numeric_support, 4),
        "evidence_quality_percent": verdict_mod.evidence_quality_percent(
            segments, diversity=adaptive.diversity
        ),
        "claim_breakdown": breakdown,
        "evidence_map": evidence_map,
        "proposed_verdict": verdict_mod.proposed_verdict(statuses),
        "reconciliation_reasons": list(reconciled.reasons),
        "claim_strictness": round(strictness, 4),
        "analysis_counts": {
            "subclaims": n,
            "evidence": len(ranked),
            "admissible_evidence": len(admissible),
            "admissible_evidence_ratio": round(len(admissible) / len(ranked), 4) if ranked else 0.0,
            "supporting_evidence": len(supporting),
            "contradicting_evidence": len(contradicting),
            "unresolved_segments": sum(1 for s in statuses if s == "UNKNOWN"),
            "contradicted_segments": sum(1 for s in statuses if s in verdict_mod.CONTRADICTING),
            "strong_covered_subclaims": adaptive.strong_covered,
        },
    }


def _evidence_item(
    r: Ranked, row: EvidenceRow, trust: trust_mod.TrustEvidence, subclaims: Sequence[str]
) -> dict[str, Any]:
    labels = {s.label for s in trust.stances.values()}
    stance = (
        "contradicts"
        if "contradicted" in labels
        else "supports"
        if "entailed" in labels
        else "neutral"
    )
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
        "stance": stance,
        "stances": [
            {
                "subclaim_index": i,
                "label": trust.stances[i].label,
                "confidence": round(trust.stances[i].confidence, 4),
            }
            for i in range(len(subclaims))
        ],
        "signals": {
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
        },
    }


def _stored_vector(text: str, query_vectors: Sequence[Any]) -> Any:
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


@transaction.atomic
def _store_claim(
    *,
    workspace: Workspace,
    text: str,
    vector: Any,
    ranked: Sequence[Ranked],
    rows: dict[str, EvidenceRow],
    evidence_trust: Sequence[trust_mod.TrustEvidence],
    source: str,
    metadata: dict[str, Any],
    actor: Any,
) -> str:
    """Store the verified claim (origin ``worker``, unpublished) citing the source of
    its best supporting evidence (else its top item, or the request's ``source`` when
    that names a source of the workspace); its pass through the one chain (bind, judge,
    state) is queued on commit (``worker_claim_verify``), off the request path."""
    cited = None
    if source:
        cited = Source.objects.filter(workspace=workspace, ref=source).first()
    quote = ""
    if cited is None:
        best = next(
            (
                r
                for r, e in zip(ranked, evidence_trust, strict=True)
                if any(s.label == "entailed" for s in e.stances.values())
            ),
            ranked[0],
        )
        row = rows[best.key]
        cited = Source.objects.get(pk=row.source_id)
        quote = row.quote
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
    claim_id = claim.pk
    task_enqueue_on_commit(WORKER_CLAIM_VERIFY, claim_id)
    return claim.public_id


def worker_stored_claim_verify(*, claim_id: int) -> str:
    """Bind, judge and state a stored worker claim once (safe to rerun: a claim already
    judged is left as it is). Returns its state."""
    claim = Claim.objects.filter(pk=claim_id, origin=ClaimOrigin.WORKER).first()
    if claim is None:
        return "missing"
    if not claim.verdicts.exists():
        claims_verify(claims=[claim], judge=get_judge())
        claim.refresh_from_db(fields=["state"])
    return str(claim.state)
