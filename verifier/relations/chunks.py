"""The chunk prefilter (seed 004): NOT SR-MKG. Plain cosine similarity of each chunk to
the query, with its own thresholds (``chunk_vector_threshold_accept`` / ``_reject``),
plus VoG for the borderline chunks (at most ``vog_max_candidates`` VoG calls; a chunk
without text makes none; beyond the cap a borderline chunk is kept but not counted as
verified).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from verifier.judges.base import Judge
from verifier.relations import vog
from verifier.relations.srmkg import VerificationSettings


class ChunkLike(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def similarity(self) -> float: ...


def verify_chunks(
    chunks: Sequence[ChunkLike],
    query: str,
    *,
    settings: VerificationSettings | None = None,
    judge: Judge | None = None,
) -> dict[str, list[Any]]:
    """``filtered`` (kept), ``verified`` (accepted by similarity or VoG),
    ``rejected_vector``, ``rejected_srmkg`` (deprecated alias of ``rejected_vector``),
    ``rejected_vog`` and ``vog_scores`` (one per VoG-judged chunk, in order)."""
    settings = settings or VerificationSettings()
    verified: list[Any] = []
    rejected_vector: list[Any] = []
    borderline: list[tuple[int, Any]] = []
    for index, chunk in enumerate(chunks):
        if chunk.similarity >= settings.chunk_vector_threshold_accept:
            verified.append(chunk)
        elif chunk.similarity < settings.chunk_vector_threshold_reject:
            rejected_vector.append(chunk)
        else:
            borderline.append((index, chunk))
    questions = [
        vog.VogQuestion(key=str(i), statement=query, source_text=chunk.text, target_text="")
        for i, chunk in borderline
    ]
    to_ask, beyond = vog.vog_within_cap(questions, settings.vog_max_candidates)
    outcomes = vog.vog_ask(judge, to_ask)
    by_key = {str(i): chunk for i, chunk in borderline}
    beyond_cap = [by_key[q.key] for q in beyond]
    rejected_vog: list[Any] = []
    vog_scores: list[float] = []
    for q in to_ask:
        chunk = by_key[q.key]
        outcome = outcomes[q.key]
        vog_scores.append(outcome.vog_score)
        (verified if outcome.grounded else rejected_vog).append(chunk)
    kept_ids = {id(c) for c in verified} | {id(c) for c in beyond_cap}
    return {
        "filtered": [c for c in chunks if id(c) in kept_ids],
        "verified": [c for c in chunks if id(c) in {id(v) for v in verified}],
        "rejected_vector": rejected_vector,
        "rejected_srmkg": list(rejected_vector),
        "rejected_vog": rejected_vog,
        "vog_scores": vog_scores,
    }
