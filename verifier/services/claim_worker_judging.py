"""Layer 2 for the claim worker: the judge's stance of every top evidence item toward
every subclaim. Stances come only from the judge, never from overlap."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from verifier.judges import Judge
from verifier.judges.base import JudgeItem, JudgeResult, item_context
from verifier.judges.coverage import judge_items
from verifier.selectors.claims import claim_stored_vectors
from verifier.selectors.sentences import sentence_stored_vectors
from verifier.services.claim_worker_retrieval import Found
from verifier.services.judging import _WithVectors


def stance_key(subclaim_index: int, item_index: int) -> str:
    """The key of the judge item of subclaim ``subclaim_index`` × top item ``item_index``."""
    return f"{subclaim_index}:{item_index}"


def _with_known_vectors(judge: Judge, found: Found) -> Judge:
    """The judge, reusing the embeddings already at hand when it can: the queries' (claim
    and subclaims), each evidence claim's stored one where its text is its quote and each
    source sentence's from the sentence index."""
    if not getattr(judge, "accepts_vectors", False):
        return judge
    vectors: dict[str, Any] = dict(zip(found.queries, found.vectors, strict=False))
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
    return _WithVectors(judge, vectors)


def evidence_stances(
    judge: Judge, subclaims: Sequence[str], found: Found
) -> dict[str, JudgeResult]:
    """{``stance_key(i, j)``: the judge's result for subclaim i × top item j}."""
    items = [
        JudgeItem(
            key=stance_key(i, j),
            claim=sub,
            spans=(r.candidate.text,),
            context=item_context(title=found.by_key[r.key].source_title, previous=""),
        )
        for i, sub in enumerate(subclaims)
        for j, r in enumerate(found.ranked)
    ]
    asked = _with_known_vectors(judge, found)
    return {res.key: res for res in judge_items(asked, items)} if items else {}
