"""Seed 004's chunk prefilter on the claim worker's chunk pool: the source sentences its
vector search found, each with its cosine to the nearest retrieval query."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from verifier.judges import Judge
from verifier.models import Workspace
from verifier.selectors.claim_worker import EvidenceRow
from verifier.selectors.sentences import sentence_stored_vectors
from verifier.services.judging import _WithVectors
from verifier.services.relation_verify import chunks_verify


@dataclass(frozen=True)
class _SentenceChunk:
    """A source sentence of the sentence index as the chunk prefilter reads it: its text
    and its cosine to the nearest retrieval query (``Chunk.similarity``)."""

    row: EvidenceRow
    similarity: float

    @property
    def text(self) -> str:
        return self.row.quote


def _with_sentence_vectors(
    judge: Judge, claim: str, vectors: Sequence[Any], sentences: Sequence[EvidenceRow]
) -> Judge:
    """The judge, given the claim's query vector and the sentences' stored ones when it
    can reuse vectors."""
    if not (vectors and getattr(judge, "accepts_vectors", False)):
        return judge
    known = {claim: vectors[0]}
    stored = sentence_stored_vectors(
        sentence_pks=[row.sentence_pk for row in sentences if row.sentence_pk is not None]
    )
    for row in sentences:
        if row.sentence_pk in stored:
            known[row.quote] = stored[row.sentence_pk]
    return _WithVectors(judge, known)


def chunk_prefilter(
    workspace: Workspace,
    sentences: Sequence[EvidenceRow],
    sentence_sem: Mapping[int, float],
    claim: str,
    vectors: Sequence[Any],
    judge: Judge,
) -> tuple[list[EvidenceRow], dict[str, Any]]:
    """Cosine ≥ ``chunk_vector_threshold_accept`` kept, < ``chunk_vector_threshold_reject``
    cut, VoG (the worker's judge, asked whether the sentence supports the claim) for the
    rest; recorded as one ``ChunkVerificationEvent``. ``sentence_sem``: source sentence
    pk → cosine. Returns the kept rows and the summary for the response."""
    if not sentences:
        return [], {"chunks": 0}
    asked = _with_sentence_vectors(judge, claim, vectors, sentences)
    chunks = [_SentenceChunk(row, sentence_sem.get(row.sentence_pk or 0, 0.0)) for row in sentences]
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
