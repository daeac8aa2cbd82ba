"""The nearest EARLIER claim of each claim's workspace, for near-duplicate grouping
(``services.ingest_group``): the most similar claim with a lower id, by cosine of the
stored vectors.

Found exactly, by comparing the batch's vectors with every earlier embedded claim of the
workspace in numpy (one query per batch), not through the HNSW index: an index scan
filtered to earlier claims of one workspace is approximate (it can miss every earlier
neighbour) and, with stale planner statistics, degrades to a sort per claim.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from django.db import connection

from verifier.embeddings import vectors_from_binary
from verifier.models import Claim

# (id, cluster root, cosine) of a claim's nearest earlier claim.
Neighbour = tuple[int, int, float]

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


def claims_nearest_earlier(claims: list[Claim]) -> dict[int, Neighbour]:
    """For each claim with a vector: (id, cluster root, cosine) of the most similar
    EARLIER claim (lower id) of its workspace, by exhaustive comparison in float32 (the
    precision pgvector itself computes ``<=>`` in); none for a claim with no earlier
    embedded claim. Ties go to the lowest id."""
    out: dict[int, Neighbour] = {}
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
