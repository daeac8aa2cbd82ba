"""Group and embed stages.

Near-duplicates are found by embedding cosine, so grouping needs the vectors that the
embed stage is named for. Rather than reorder the published stage list, the group
stage embeds the claims of its batch that have no vector yet (the same
``claims_embed`` the embed stage uses) and stores them; the embed stage then fills
whatever is still missing (claims whose group batch failed, or whose text
remediation changed) and is where embedding coverage is accounted for.

A claim is a near-duplicate when an EARLIER claim of the workspace (lower id) has
cosine ≥ ``GROUP_COSINE_THRESHOLD``; ``duplicate_of`` then points at that claim's
cluster root, so a cluster is a star around its oldest claim. Recomputed from the
vectors on every run, so reruns converge on the same rows. The nearest earlier claim is
found exactly, by comparing the batch's vectors with every earlier embedded claim of the
workspace in numpy (one query per batch), not through the HNSW index: an index scan
filtered to earlier claims of one workspace is approximate (it can miss every earlier
neighbour) and, with stale planner statistics, degrades to a sort per claim.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from django.db import connection, transaction

from verifier.embeddings import (
    EMBEDDING_DIMENSIONS,
    embed_texts,
    id_vector_copy_binary,
    vectors_from_binary,
)
from verifier.models import Claim
from verifier.selectors.claims import claim_pks_without_vectors

GROUP_COSINE_THRESHOLD: Final = 0.92
# Texts per encode call. ``encode`` sorts by length within a call, so a larger call pads
# less: embedding the 11,656 claims of ``bench/ingest.py`` in calls of 256 took 65.3 s,
# in one call 60.7 s. 1024 is the group stage's batch, so a group batch is one call.
ENCODE_CALL_TEXTS: Final = 1024


def _without_vectors(claims: list[Claim]) -> list[Claim]:
    """The claims with no vector: from the instance when it holds the field, else (the
    stages load claims with ``embedding`` deferred) from one query."""
    deferred = {c.pk for c in claims if "embedding" in c.get_deferred_fields()}
    empty = claim_pks_without_vectors(claim_pks=list(deferred)) if deferred else set()
    return [c for c in claims if (c.pk in empty if c.pk in deferred else c.embedding is None)]


def claims_embed(*, claims: list[Claim]) -> int:
    """Embed ``claims`` that have no vector into the pgvector column; returns how many."""
    missing = _without_vectors(claims)
    for offset in range(0, len(missing), ENCODE_CALL_TEXTS):
        batch = missing[offset : offset + ENCODE_CALL_TEXTS]
        vectors = embed_texts([c.text for c in batch])
        for claim, vector in zip(batch, vectors, strict=True):
            claim.embedding = vector
        _store_embeddings(batch)
    return len(missing)


# Vectors travel to the server in binary COPY into a per-session temporary table (its
# rows go at commit), then one UPDATE joins them in: 1,024 vectors written as pgvector
# text took ~230 ms here (formatting and parsing 393,216 floats), in binary ~50 ms.
_EMBEDDINGS_IN = "spanproof_claim_embedding_in"
_CREATE_EMBEDDINGS_IN = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_EMBEDDINGS_IN} "
    f"(id bigint NOT NULL, embedding vector({EMBEDDING_DIMENSIONS}) NOT NULL) "
    "ON COMMIT DELETE ROWS"
)
_COPY_EMBEDDINGS_IN = f"COPY {_EMBEDDINGS_IN} (id, embedding) FROM STDIN WITH (FORMAT BINARY)"
# The ids again as an array: the temporary table has no statistics (autovacuum never
# sees temporary tables), so the planner guesses ~25,000 rows in it and would hash-join
# them against a full scan of the claims table; ``c.id = ANY(...)`` keeps the claims side
# to an index scan of exactly the batch's rows, however large the table.
_STORE_EMBEDDINGS = f"""
UPDATE {Claim._meta.db_table} AS c SET embedding = v.embedding
FROM {_EMBEDDINGS_IN} AS v WHERE c.id = v.id AND c.id = ANY(%s::bigint[])
"""


def _store_embeddings(claims: list[Claim]) -> None:
    """``bulk_update(claims, ["embedding"])``: binary COPY, then one UPDATE, in the
    caller's transaction or one of its own (the temporary rows are deleted after the
    UPDATE, so a second call in the same transaction starts empty)."""
    if not claims:
        return
    ids = [c.pk for c in claims]
    payload = id_vector_copy_binary(ids, np.stack([c.embedding for c in claims]))
    with transaction.atomic(savepoint=False), connection.cursor() as cursor:
        cursor.execute(_CREATE_EMBEDDINGS_IN)
        with cursor.copy(_COPY_EMBEDDINGS_IN) as copy:
            copy.write(payload)
        cursor.execute(_STORE_EMBEDDINGS, [ids])
        cursor.execute(f"DELETE FROM {_EMBEDDINGS_IN}")


# Every embedded claim of a workspace up to an id, vectors in pgvector's binary form
# (uint16 dimensions, uint16 unused, then big-endian float32s): the exact comparison
# below reads them all, and the binary form is far cheaper to transfer and parse.
_EARLIER = f"""
SELECT id, COALESCE(duplicate_of_id, id), vector_send(embedding)
FROM {Claim._meta.db_table}
WHERE workspace_id = %s AND id <= %s AND embedding IS NOT NULL
ORDER BY id
"""
# Earlier claims compared per block: bounds the similarity matrix to
# batch × GROUP_COLUMN_BLOCK float32s however large the workspace grows.
GROUP_COLUMN_BLOCK: Final = 8192


def _unit_vectors(blobs: list[bytes]) -> np.ndarray:
    """pgvector binary blobs → an (n, 384) float32 array of unit vectors (a zero vector
    stays zero)."""
    matrix = vectors_from_binary(blobs)
    norms = np.linalg.norm(matrix, axis=1)
    matrix /= np.where(norms > 0, norms, 1.0)[:, None]  # cosine, as pgvector's <=>
    return matrix


def _nearest_earlier(claims: list[Claim]) -> dict[int, tuple[int, int, float]]:
    """For each claim with a vector: (id, cluster root, cosine) of the most similar
    EARLIER claim (lower id) of its workspace, by exhaustive comparison in float32 (the
    precision pgvector itself computes ``<=>`` in); none for a claim with no earlier
    embedded claim. Ties go to the lowest id."""
    out: dict[int, tuple[int, int, float]] = {}
    by_workspace: dict[int, list[int]] = {}
    for claim in claims:
        by_workspace.setdefault(claim.workspace_id, []).append(claim.pk)
    for workspace_id, pks in by_workspace.items():
        with connection.cursor() as cursor:
            cursor.execute(_EARLIER, [workspace_id, max(pks)])
            rows = cursor.fetchall()
        if not rows:
            continue
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        roots = [r[1] for r in rows]
        matrix = _unit_vectors([bytes(r[2]) for r in rows])
        position = {int(pk): i for i, pk in enumerate(ids)}
        wanted = [pk for pk in pks if pk in position]  # embedded claims of this batch
        if not wanted:
            continue
        rows_at = np.array([position[pk] for pk in wanted], dtype=np.int64)
        best_sim = np.full(len(wanted), -np.inf, dtype=np.float32)
        best_col = np.zeros(len(wanted), dtype=np.int64)
        queries = matrix[rows_at]
        # Only earlier columns count: the claim at row r may match columns < r.
        for first in range(0, int(rows_at.max()), GROUP_COLUMN_BLOCK):
            block = queries @ matrix[first : first + GROUP_COLUMN_BLOCK].T
            cols = np.arange(first, first + block.shape[1])
            block[cols[None, :] >= rows_at[:, None]] = -np.inf
            arg = block.argmax(axis=1)
            sim = block[np.arange(len(wanted)), arg]
            better = sim > best_sim  # strictly: an earlier block keeps its tie
            best_sim[better] = sim[better]
            best_col[better] = arg[better] + first
        for i, pk in enumerate(wanted):
            if rows_at[i] == 0:
                continue  # the workspace's first embedded claim has nothing earlier
            col = int(best_col[i])
            out[pk] = (int(ids[col]), int(roots[col]), float(best_sim[i]))
    return out


def claims_group(*, claims: list[Claim]) -> int:
    """Set ``duplicate_of`` for ``claims`` (ascending ids); returns duplicates found."""
    claims_embed(claims=claims)
    nearest = _nearest_earlier(claims)
    roots: dict[int, int | None] = {}
    for claim in claims:
        found = nearest.get(claim.pk)
        if found is None or found[2] < GROUP_COSINE_THRESHOLD:
            roots[claim.pk] = None
            continue
        other, other_root, _ = found
        # The neighbour may be in this batch and just grouped: follow it to its root.
        root = roots.get(other) if other in roots else other_root
        roots[claim.pk] = root if root is not None else other
    changed = [c for c in claims if c.duplicate_of_id != roots[c.pk]]
    for claim in changed:
        claim.duplicate_of_id = roots[claim.pk]
    Claim.objects.bulk_update(changed, ["duplicate_of"])
    return sum(1 for r in roots.values() if r is not None)
