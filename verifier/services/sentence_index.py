"""The sentence index (``SourceSentence``): every sentence of a source's current version,
as the binding splitter (``verifier.binding.sentence_spans``) cuts it, with its
embedding, so ``POST /worker/verify`` can find a sentence that no extracted claim copied.

The ingest store stage indexes the job's source versions (``source_sentences_index``).
Cost: a sentence whose text (whitespace folded) equals the text of an embedded claim of
the same sources takes that claim's stored vector; only the others are embedded, each
distinct text once, in batched ``embed_texts`` calls. Rows go to the server by binary
COPY into a temporary table, then one INSERT (``ON CONFLICT DO NOTHING``).

Idempotent: spans already indexed are skipped, so a rerun of the store stage or a
re-ingest of the same version adds no rows. Only a source's current version is indexed;
indexing it drops the rows of the source's older versions (the index is derived from
the text, not history). Sentences without a letter (numbering, rules) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

import numpy as np
from django.db import connection, transaction

from verifier.embeddings import EMBEDDING_DIMENSIONS, bigints_vector_copy_binary, embed_texts
from verifier.models import SourceSentence, SourceVersion
from verifier.selectors.sentences import (
    VersionToIndex,
    claim_vectors_by_text,
    sentence_spans_indexed,
    versions_to_index,
)
from verifier.text.sentences import sentence_spans
from verifier.text.words import LETTER

# Versions read (texts in memory) and written per round; their sentences to embed go
# to ``embed_texts`` in calls of at most ENCODE_CALL_TEXTS (the group stage's size).
VERSIONS_PER_ROUND: Final = 32
ENCODE_CALL_TEXTS: Final = 1024


@dataclass(frozen=True)
class SentenceIndexCounts:
    versions: int = 0  # current versions looked at
    sentences: int = 0  # rows written
    reused: int = 0  # rows that took a claim's stored vector
    embedded: int = 0  # distinct texts embedded

    def __add__(self, other: SentenceIndexCounts) -> SentenceIndexCounts:
        return SentenceIndexCounts(
            self.versions + other.versions,
            self.sentences + other.sentences,
            self.reused + other.reused,
            self.embedded + other.embedded,
        )


def source_sentences_index(*, version_pks: list[int]) -> SentenceIndexCounts:
    """Index the sentences of those of ``version_pks`` that are their source's current
    version. Embeds with no transaction open when called without one."""
    pks = sorted(set(version_pks))
    counts = SentenceIndexCounts()
    window = _Window()
    for first in range(0, len(pks), VERSIONS_PER_ROUND):
        window.add(versions_to_index(version_pks=pks[first : first + VERSIONS_PER_ROUND]))
        if len(window.fresh) >= ENCODE_CALL_TEXTS:
            counts += window.flush()
            window = _Window()
    return counts + window.flush()


@dataclass(frozen=True)
class _Pending:
    version: VersionToIndex
    start: int
    end: int
    text: str  # whitespace folded


def _sentences(versions: list[VersionToIndex]) -> list[_Pending]:
    done = sentence_spans_indexed(version_pks=[v.pk for v in versions])
    pending = []
    for version in versions:
        for start, end in sentence_spans(version.text):
            if (version.pk, start, end) in done:
                continue
            text = " ".join(version.text[start:end].split())
            if LETTER.search(text):
                pending.append(_Pending(version, start, end, text))
    return pending


@dataclass
class _Window:
    """Sentences of several rounds of versions, written together once about
    ENCODE_CALL_TEXTS of them need embedding: ``encode`` sorts a call's texts by length,
    so one large call pads far less than a small call per round (the texts left to
    embed are the few, often long, sentences no claim copied)."""

    versions: list[VersionToIndex] = field(default_factory=list)
    pending: list[_Pending] = field(default_factory=list)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)
    reused: int = 0

    def add(self, versions: list[VersionToIndex]) -> None:
        if not versions:
            return
        pending = _sentences(versions)
        stored = claim_vectors_by_text(
            source_pks=[v.source_id for v in versions], texts=[p.text for p in pending]
        )
        self.versions += versions
        self.pending += pending
        self.vectors.update(stored)
        self.fresh.update(p.text for p in pending if p.text not in self.vectors)
        self.reused += sum(1 for p in pending if p.text in stored)

    def flush(self) -> SentenceIndexCounts:
        """Embed what is left to embed, write every row (one transaction)."""
        if not self.versions:
            return SentenceIndexCounts()
        fresh = sorted(self.fresh - self.vectors.keys())
        for offset in range(0, len(fresh), ENCODE_CALL_TEXTS):
            batch = fresh[offset : offset + ENCODE_CALL_TEXTS]
            self.vectors.update(zip(batch, embed_texts(batch), strict=True))
        return SentenceIndexCounts(
            versions=len(self.versions),
            sentences=_store(self.versions, self.pending, self.vectors),
            reused=self.reused,
            embedded=len(fresh),
        )


_SENTENCES_IN = "spanproof_source_sentence_in"
_CREATE_SENTENCES_IN = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_SENTENCES_IN} "
    "(workspace_id bigint NOT NULL, source_version_id bigint NOT NULL, "
    "start bigint NOT NULL, stop bigint NOT NULL, "
    f"embedding vector({EMBEDDING_DIMENSIONS}) NOT NULL) ON COMMIT DELETE ROWS"
)
_COPY_SENTENCES_IN = (
    f"COPY {_SENTENCES_IN} (workspace_id, source_version_id, start, stop, embedding) "
    "FROM STDIN WITH (FORMAT BINARY)"
)
_TABLE = SourceSentence._meta.db_table
_INSERT_SENTENCES = f"""
INSERT INTO {_TABLE} (workspace_id, source_version_id, start, "end", embedding)
SELECT workspace_id, source_version_id, start, stop, embedding FROM {_SENTENCES_IN}
ORDER BY source_version_id, start
ON CONFLICT (source_version_id, start, "end") DO NOTHING
"""
_VERSIONS = SourceVersion._meta.db_table
# The rows of the sources' older versions: the index holds current text only.
_DROP_OLDER = f"""
DELETE FROM {_TABLE} t USING {_VERSIONS} old, {_VERSIONS} cur
WHERE cur.id = ANY(%s) AND old.source_id = cur.source_id AND old.number < cur.number
  AND t.source_version_id = old.id
"""


def _store(
    versions: list[VersionToIndex], pending: list[_Pending], vectors: dict[str, np.ndarray]
) -> int:
    """Write the rows (binary COPY, one INSERT) and drop the older versions' rows, in one
    transaction (the caller's, or its own); returns rows inserted."""
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        inserted = 0
        if pending:
            payload = bigints_vector_copy_binary(
                [
                    [p.version.workspace_id for p in pending],
                    [p.version.pk for p in pending],
                    [p.start for p in pending],
                    [p.end for p in pending],
                ],
                np.stack([vectors[p.text] for p in pending]),
            )
            cursor.execute(_CREATE_SENTENCES_IN)
            with cursor.copy(_COPY_SENTENCES_IN) as copy:
                copy.write(payload)
            cursor.execute(_INSERT_SENTENCES)
            inserted = cursor.rowcount
            cursor.execute(f"DELETE FROM {_SENTENCES_IN}")
        cursor.execute(_DROP_OLDER, [[v.pk for v in versions]])
    return max(0, inserted)
