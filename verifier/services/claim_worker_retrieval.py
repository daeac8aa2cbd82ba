"""Retrieval for the claim worker: the candidates of a claim, as evidence rows, ranked.

Per retrieval query (the claim and each subclaim): the nearest published claims and the
nearest source sentences of the sentence index by vector (or, without embeddings, claims
by their words: ``backfill``), then the knowledge graph (claims that name the claim's
entities, and the relations of the nearest claims, each with the tail of the relation
that reached it). The source sentences pass the chunk prefilter
(``claim_worker_chunk_prefilter``); everything is ranked by the pure hybrid ranking
(``verifier.claim_worker.ranking``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from verifier.claim_worker.config import WorkerTuning
from verifier.claim_worker.ranking import Candidate, Ranked, hybrid_rank
from verifier.claim_worker.text import ClaimFeatures
from verifier.embeddings import EmbeddingUnavailable, embed_text
from verifier.judges import Judge
from verifier.models import Workspace
from verifier.pipeline.relating import entity_mentions
from verifier.selectors import retrieval as retrieval_sel
from verifier.selectors.claim_worker import (
    CLAIM,
    EvidenceRow,
    worker_claims_by_entities,
    worker_evidence_rows,
    worker_relation_tails,
    worker_sentence_rows,
)
from verifier.services.claim_worker_chunk_prefilter import chunk_prefilter

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

Prefilter = Callable[[list[EvidenceRow]], list[EvidenceRow]]


@dataclass
class Retrieved:
    """What the searches found, by claim pk or source sentence pk."""

    sem: dict[int, float] = field(default_factory=dict)  # claim pk → cosine to nearest query
    kg: dict[int, float] = field(default_factory=dict)  # claim pk → graph signal
    # claim pk → tail(s) of the graph relation that reached it
    kg_object: dict[int, str] = field(default_factory=dict)
    # claim pks the graph reached only through another claim's relation
    multihop: set[int] = field(default_factory=set)
    backfill: set[int] = field(default_factory=set)
    vector_available: bool = True
    # source sentence pk → cosine to the nearest query
    sentence_sem: dict[int, float] = field(default_factory=dict)


@dataclass
class Found:
    """The ranked evidence of one search: every candidate ranked (``ranked_all``) and the
    top ``top_k`` (``ranked``), with their rows by evidence id."""

    queries: list[str]
    got: Retrieved
    vectors: list[Any]
    rows: list[EvidenceRow]
    by_key: dict[str, EvidenceRow]
    ranked_all: list[Ranked]
    ranked: list[Ranked]
    chunk_prefilter: dict[str, Any]


def credibility(row: EvidenceRow) -> float:
    if row.kind != CLAIM:
        return SENTENCE_CREDIBILITY
    if row.trust_score is not None:
        return row.trust_score / 100
    return STATE_CREDIBILITY.get(row.state, 0.5)


def _vector_seeds(
    workspace: Workspace, queries: Sequence[str], pack: str, got: Retrieved
) -> list[Any]:
    """The nearest claims and source sentences of each query's vector, into ``got``."""
    # One query at a time on the single-thread query path (``embed_text``): a batch
    # through ``embed_texts`` spreads over every core and, on a busy machine, is
    # ~100× slower for the few short texts a claim gives.
    vectors = [embed_text(query) for query in queries]
    for vector in vectors:
        for pk, similarity in retrieval_sel.claim_seeds_by_vector(
            workspace=workspace, vector=vector, limit=CANDIDATES_PER_QUERY, domain_pack=pack
        ):
            got.sem[pk] = max(got.sem.get(pk, 0.0), similarity)
        for pk, similarity in retrieval_sel.sentence_seeds_by_vector(
            workspace=workspace, vector=vector, limit=SENTENCES_PER_QUERY, domain_pack=pack
        ):
            got.sentence_sem[pk] = max(got.sentence_sem.get(pk, 0.0), similarity)
    return vectors


def _text_seeds(workspace: Workspace, queries: Sequence[str], pack: str, got: Retrieved) -> None:
    """Without a query vector the sentence index cannot be searched; claims are found by
    their words (``backfill``)."""
    got.vector_available = False
    for query in queries:
        for pk, _score in retrieval_sel.claim_seeds_by_text(
            workspace=workspace, query=query, limit=CANDIDATES_PER_QUERY, domain_pack=pack
        ):
            got.sem.setdefault(pk, 0.0)
            got.backfill.add(pk)


def _graph_seeds(workspace: Workspace, features: ClaimFeatures, got: Retrieved) -> None:
    """Claims that name the claim's entities (the share they name), then the claims
    related to the nearest vector seeds (the relation's confidence), into ``got``."""
    names = entity_mentions(features.text)
    if names:
        reached = worker_claims_by_entities(
            workspace=workspace, normalized_names=names, limit=KG_CANDIDATES
        )
        for pk, found in reached.items():
            got.kg[pk] = len(found) / len(names)
    direct = set(got.kg)
    seeds = sorted(got.sem, key=lambda pk: -got.sem[pk])[:KG_RELATION_SEEDS]
    for a, b, _kind, confidence in retrieval_sel.relations_touching(
        workspace=workspace, claim_pks=seeds
    ):
        other = b if a in seeds else a
        got.kg[other] = max(got.kg.get(other, 0.0), float(confidence))
    tails = worker_relation_tails(workspace=workspace, claim_pks=got.kg, normalized_names=names)
    got.kg_object = {pk: ", ".join(sorted(found)) for pk, found in tails.items()}
    got.multihop = set(got.kg) - direct


def _retrieve(
    workspace: Workspace, queries: Sequence[str], features: ClaimFeatures, pack: str
) -> tuple[Retrieved, list[Any]]:
    got = Retrieved()
    vectors: list[Any] = []
    try:
        vectors = _vector_seeds(workspace, queries, pack, got)
    except EmbeddingUnavailable:
        _text_seeds(workspace, queries, pack, got)
    _graph_seeds(workspace, features, got)
    return got, vectors


def _evidence_rows(
    workspace: Workspace, got: Retrieved, domain_pack: str, prefilter: Prefilter
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
    got: Retrieved,
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


def retrieve_and_rank(
    workspace: Workspace,
    queries: Sequence[str],
    features: ClaimFeatures,
    domain_pack: str,
    top_k: int,
    tuning: WorkerTuning,
    judge: Judge,
) -> Found:
    """Search, prefilter the source sentences, rank; every path (vectors, sentences,
    entities, relations) is held to ``domain_pack`` ("" for every source)."""
    got, vectors = _retrieve(workspace, queries, features, domain_pack)
    summary: dict[str, Any] = {"chunks": 0}

    def prefilter(sentences: list[EvidenceRow]) -> list[EvidenceRow]:
        kept, summary_ = chunk_prefilter(
            workspace, sentences, got.sentence_sem, features.text, vectors, judge
        )
        summary.update(summary_)
        return kept

    rows, span_sem = _evidence_rows(workspace, got, domain_pack, prefilter)
    ranked_all = hybrid_rank(features, _candidates(rows, got, span_sem), tuning=tuning)
    return Found(
        list(queries),
        got,
        vectors,
        rows,
        {row.public_id: row for row in rows},
        ranked_all,
        ranked_all[:top_k],
        summary,
    )
