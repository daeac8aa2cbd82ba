"""Seed 003 — RAG answer audit (pure core, no Django).

``parse_chunks`` and ``validate_answer`` check the input; ``audit_answer`` decomposes
the answer into atomic claims, judges each against every chunk and returns an
``AuditResult`` whose ``as_dict()`` is the seed's output document (plus, per claim, the
bound evidence: chunk id, quote, offsets into the chunk and match kind).
"""

from verifier.rag.audit import AuditResult, audit_answer, overall_verdict
from verifier.rag.chunks import (
    MAX_ANSWER_CHARS,
    MAX_ANSWER_TIMES_CHUNK_CHARS,
    MAX_ANSWER_TIMES_CHUNKS,
    MAX_CHUNKS,
    MAX_CHUNKS_TOTAL_CHARS,
    Chunk,
    RagInputError,
    check_audit_size,
    parse_chunks,
    validate_answer,
)
from verifier.rag.claim_audit import ClaimAudit
from verifier.rag.decompose import AnswerClaim, AnswerSentence, decompose

__all__ = [
    "MAX_ANSWER_CHARS",
    "MAX_ANSWER_TIMES_CHUNKS",
    "MAX_ANSWER_TIMES_CHUNK_CHARS",
    "MAX_CHUNKS",
    "MAX_CHUNKS_TOTAL_CHARS",
    "AnswerClaim",
    "AnswerSentence",
    "AuditResult",
    "Chunk",
    "ClaimAudit",
    "RagInputError",
    "audit_answer",
    "check_audit_size",
    "decompose",
    "overall_verdict",
    "parse_chunks",
    "validate_answer",
]
