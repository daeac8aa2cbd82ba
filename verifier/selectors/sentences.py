"""Reads for the sentence index (``SourceSentence``): what indexing a source version
needs (its text, the spans already indexed, the stored vectors of claims with the same
text) and the stored vectors of indexed sentences."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.db import connection
from django.db.models import Exists, OuterRef

from verifier.embeddings import vectors_from_binary
from verifier.models import Claim, SourceSentence, SourceVersion


@dataclass(frozen=True)
class VersionToIndex:
    pk: int
    source_id: int
    workspace_id: int
    text: str


def versions_to_index(*, version_pks: Iterable[int]) -> list[VersionToIndex]:
    """Those of ``version_pks`` that are their source's current (highest-numbered)
    version, with their text (one query): only the current text is indexed."""
    pks = sorted(set(version_pks))
    if not pks:
        return []
    newer = SourceVersion.objects.filter(
        source_id=OuterRef("source_id"), number__gt=OuterRef("number")
    )
    rows = (
        SourceVersion.objects.filter(pk__in=pks)
        .exclude(Exists(newer))
        .order_by("pk")
        .values_list("pk", "source_id", "source__workspace_id", "text")
    )
    return [VersionToIndex(*row) for row in rows]


def sentence_spans_indexed(*, version_pks: Iterable[int]) -> set[tuple[int, int, int]]:
    """(version pk, start, end) of the sentences of ``version_pks`` already indexed."""
    pks = sorted(set(version_pks))
    if not pks:
        return set()
    rows = SourceSentence.objects.filter(source_version_id__in=pks)
    return set(rows.values_list("source_version_id", "start", "end"))


_CLAIM_VECTORS_BY_TEXT = f"""
SELECT text, vector_send(embedding) FROM {Claim._meta.db_table}
WHERE source_id = ANY(%s) AND text = ANY(%s) AND embedding IS NOT NULL
ORDER BY id
"""


def claim_vectors_by_text(
    *, source_pks: Iterable[int], texts: Iterable[str]
) -> dict[str, np.ndarray]:
    """{text: stored vector} of the embedded claims of those sources whose text is one
    of ``texts`` (the oldest claim where several share a text), in one query, vectors
    in pgvector's binary form."""
    sources, wanted = sorted(set(source_pks)), sorted(set(texts))
    if not sources or not wanted:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_CLAIM_VECTORS_BY_TEXT, [sources, wanted])
        rows = cursor.fetchall()
    matrix = vectors_from_binary([bytes(r[1]) for r in rows])
    out: dict[str, np.ndarray] = {}
    for i, (text, _blob) in enumerate(rows):
        out.setdefault(text, matrix[i])
    return out


_SENTENCE_VECTORS = f"""
SELECT id, vector_send(embedding) FROM {SourceSentence._meta.db_table} WHERE id = ANY(%s)
"""


def sentence_stored_vectors(*, sentence_pks: list[int]) -> dict[int, np.ndarray]:
    """{source sentence pk: its stored embedding as float32} (one query)."""
    if not sentence_pks:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_SENTENCE_VECTORS, [list(sentence_pks)])
        rows = cursor.fetchall()
    matrix = vectors_from_binary([bytes(r[1]) for r in rows])
    return {int(r[0]): matrix[i] for i, r in enumerate(rows)}
