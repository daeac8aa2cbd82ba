"""The nearest EARLIER near-duplicate of each claim in its workspace, for grouping
(``services.ingest_group``): the most similar claim with a lower id, when its cosine
(of the stored vectors) reaches ``min_cosine``.

Two ways, chosen per batch and workspace:

- **Exact** (a workspace with few published claims before the batch, for the batch's
  size: ``_uses_index``): the batch's vectors against every earlier embedded claim of the
  workspace in numpy, one query per batch. Its cost grows with the workspace, so
  grouping a workspace batch by batch is quadratic in its size.
- **Index** (larger workspaces): the published earlier claims are asked for through the
  HNSW index retrieval uses (published claims only, ``claim_embedding_hnsw``): one
  statement per batch, a LATERAL index scan per claim in order of distance that stops at
  the first claim that is either an earlier claim of the workspace or farther than
  ``1 - min_cosine``. Without that second stop, a claim with no near-duplicate in its
  own workspace but many in another (or among later claims) made the scan reject them
  one by one: 3–20 ms a claim instead of ~0.4 ms in ``bench/ingest.py``, whose resident
  workspace is made of the same sentences. pgvector's iterative scan (≥ 0.8) in strict
  order keeps the scan going past rejected claims with results in distance order. The
  unpublished earlier claims (those of jobs not yet stored: this job's earlier batches,
  other running or failed jobs) and the batch's own id range, which the index does not
  hold, are still compared exactly in numpy; the nearer of the two answers wins.
  Approximate: the index can miss a near-duplicate (``bench/grouping.py`` counts the
  pairs found and missed against the exact path). Sorting is disabled for that
  statement, so stale planner statistics cannot turn it into a sort of the workspace per
  claim, and its settings live in a savepoint that is rolled back after the read.

Every claim stays in the index's reach without a second index: publishing is the only
change of ``published`` (never unset), and a second HNSW index over unpublished claims
would cost an index insert on each of the pipeline's many non-HOT updates of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Final

import numpy as np
from django.db import connection, transaction
from django.db.models import OuterRef, Subquery

from verifier.embeddings import vectors_from_binary
from verifier.models import Claim, EvidenceBinding, SourceVersion

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


def _exact(rows: Sequence[tuple[Any, ...]], pks: list[int]) -> dict[int, Neighbour]:
    """``rows`` (id, root, vector blob) in ascending id order → for each claim of ``pks``
    among them, the most similar row before it, by exhaustive comparison in float32 (the
    precision pgvector itself computes ``<=>`` in); ties go to the lowest id. None for a
    claim with no row before it."""
    out: dict[int, Neighbour] = {}
    if not rows:
        return out
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    roots = [r[1] for r in rows]
    matrix = _unit_vectors([bytes(r[2]) for r in rows])
    position = {int(pk): i for i, pk in enumerate(ids)}
    wanted = [pk for pk in pks if pk in position]  # embedded claims of this batch
    if not wanted:
        return out
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
            continue  # nothing before it
        col = int(best_col[i])
        out[pk] = (int(ids[col]), int(roots[col]), float(best_sim[i]))
    return out


# --- the index path --------------------------------------------------------------------

# When the index path is taken (``bench/grouping.py --switch``, 2 shared cores): the
# exact path's cost is reading the earlier vectors, ~9–15 µs each whatever the batch
# size; the index path costs ~0.3 ms a claim (about 16 vectors' worth) plus ~15–20 ms a
# batch (the count, the exact read of the unindexed claims, the savepoint: about 2,000
# vectors' worth). So it pays from INDEX_MIN_PUBLISHED + INDEX_PUBLISHED_PER_CLAIM ×
# batch size published earlier claims: 18,384 for a full group batch of 1,024 (measured
# crossover ~18,000), 6,096 for 256 (~7,000), 3,024 for 64 (~2,500).
INDEX_PUBLISHED_PER_CLAIM: Final = 16
INDEX_MIN_PUBLISHED: Final = 2_000
# hnsw.ef_search for the scans (candidates kept per scan; pgvector's default is 40).
INDEX_EF_SEARCH: Final = 40

_PUBLISHED_BEFORE = f"""
SELECT count(*) FROM (
    SELECT 1 FROM {Claim._meta.db_table}
    WHERE workspace_id = %s AND published AND id < %s LIMIT %s
) AS published_before
"""
# What the index does not hold: unpublished earlier claims, and the batch's own id range
# whatever its state (a rerun may group published claims).
_UNINDEXED = f"""
SELECT id, COALESCE(duplicate_of_id, id), vector_send(embedding)
FROM {Claim._meta.db_table}
WHERE workspace_id = %s AND NOT published AND id < %s AND embedding IS NOT NULL
UNION ALL
SELECT id, COALESCE(duplicate_of_id, id), vector_send(embedding)
FROM {Claim._meta.db_table}
WHERE workspace_id = %s AND id >= %s AND id <= %s AND embedding IS NOT NULL
ORDER BY 1
"""
# Each batch claim's nearest published earlier claim through the partial HNSW index
# (``c.published`` matches its condition; ``<=>`` its cosine operator class). The scan
# stops at the first claim that is an answer or too far to be one; the outer WHERE keeps
# answers only.
_INDEXED = f"""
SELECT q.id, n.id, n.root, n.distance
FROM {Claim._meta.db_table} AS q
CROSS JOIN LATERAL (
    SELECT c.id, COALESCE(c.duplicate_of_id, c.id) AS root, c.workspace_id,
           c.embedding <=> q.embedding AS distance
    FROM {Claim._meta.db_table} AS c
    WHERE c.published AND c.embedding IS NOT NULL
      AND ((c.workspace_id = %(workspace)s AND c.id < q.id)
           OR c.embedding <=> q.embedding >= %(max_distance)s)
    ORDER BY c.embedding <=> q.embedding
    LIMIT 1
) AS n
WHERE q.id = ANY(%(pks)s::bigint[]) AND q.embedding IS NOT NULL
  AND n.workspace_id = %(workspace)s AND n.id < q.id AND n.distance < %(max_distance)s
"""
_INDEX_SETTINGS = """
SELECT set_config('hnsw.ef_search', %s, true),
       set_config('hnsw.iterative_scan', 'strict_order', true),
       set_config('enable_sort', 'off', true)
"""


def _uses_index(workspace_id: int, pks: list[int]) -> bool:
    """Whether the workspace holds enough published claims before the batch (counted
    only up to that many) for the index path to pay."""
    needed = INDEX_MIN_PUBLISHED + INDEX_PUBLISHED_PER_CLAIM * len(pks)
    with connection.cursor() as cursor:
        cursor.execute(_PUBLISHED_BEFORE, [workspace_id, min(pks), needed])
        (count,) = cursor.fetchone()
    return int(count) >= needed


@contextmanager
def _index_scan_settings() -> Iterator[Any]:
    """A cursor whose statements run with the index scan's settings (``SET LOCAL`` in a
    savepoint rolled back afterwards, so they never outlive the read). Django's cursors
    bind parameters client-side and never prepare, so each statement is planned under
    these settings."""
    with transaction.atomic(), connection.cursor() as cursor:
        savepoint = transaction.savepoint()
        try:
            cursor.execute(_INDEX_SETTINGS, [str(INDEX_EF_SEARCH)])
            yield cursor
        finally:
            transaction.savepoint_rollback(savepoint)


def _indexed_params(workspace_id: int, pks: list[int], min_cosine: float) -> dict[str, Any]:
    return {"workspace": workspace_id, "pks": pks, "max_distance": 1.0 - min_cosine}


def _indexed(workspace_id: int, pks: list[int], min_cosine: float) -> dict[int, Neighbour]:
    with _index_scan_settings() as cursor:
        cursor.execute(_INDEXED, _indexed_params(workspace_id, pks, min_cosine))
        rows = cursor.fetchall()
    return {int(q): (int(c), int(root), 1.0 - float(d)) for q, c, root, d in rows}


def index_scan_plan(*, workspace_id: int, claim_pks: list[int], min_cosine: float) -> str:
    """EXPLAIN of the index path's statement for ``claim_pks``, under its settings (for
    tests and benches: the scan must be ``claim_embedding_hnsw``, with no Sort)."""
    with _index_scan_settings() as cursor:
        params = _indexed_params(workspace_id, claim_pks, min_cosine)
        cursor.execute("EXPLAIN " + _INDEXED, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def _nearer(a: Neighbour | None, b: Neighbour | None) -> Neighbour | None:
    """The more similar of two answers; a tie to the lower id."""
    if a is None or b is None:
        return a or b
    return a if (a[2], -a[0]) >= (b[2], -b[0]) else b


def _nearest_in_workspace(
    workspace_id: int, pks: list[int], min_cosine: float
) -> dict[int, Neighbour]:
    first, last = min(pks), max(pks)
    if not _uses_index(workspace_id, pks):
        with connection.cursor() as cursor:
            cursor.execute(_EARLIER, [workspace_id, last])
            return _exact(cursor.fetchall(), pks)
    with connection.cursor() as cursor:
        cursor.execute(_UNINDEXED, [workspace_id, first, workspace_id, first, last])
        exact = _exact(cursor.fetchall(), pks)
    indexed = _indexed(workspace_id, pks, min_cosine)
    out: dict[int, Neighbour] = {}
    for pk in pks:
        best = _nearer(exact.get(pk), indexed.get(pk))
        if best is not None:
            out[pk] = best
    return out


def claims_nearest_earlier(claims: list[Claim], *, min_cosine: float) -> dict[int, Neighbour]:
    """For each claim with a vector whose most similar EARLIER claim (lower id) of its
    workspace has cosine ≥ ``min_cosine``: (that claim's id, its cluster root, the
    cosine). Exact in a workspace with few published earlier claims (ties to the lowest
    id), approximate in a larger one (module docstring)."""
    by_workspace: dict[int, list[int]] = {}
    for claim in claims:
        by_workspace.setdefault(claim.workspace_id, []).append(claim.pk)
    out: dict[int, Neighbour] = {}
    for workspace_id, pks in by_workspace.items():
        found = _nearest_in_workspace(workspace_id, pks, min_cosine)
        out.update((pk, n) for pk, n in found.items() if n[2] >= min_cosine)
    return out


def claims_superseded_in_own_source(
    claims: list[Claim], nearest: dict[int, tuple[int, int, float]]
) -> set[int]:
    """The claims of ``claims`` whose nearest earlier claim is of the same source and
    has its span in an earlier version of it with other text (stale)."""
    if not nearest:
        return set()
    latest = (
        SourceVersion.objects.filter(source_id=OuterRef("claim__source_id"))
        .order_by("-number")
        .values("sha256")[:1]
    )
    stale = dict(
        EvidenceBinding.objects.filter(
            claim_id__in={other for other, _, _ in nearest.values()}, is_active=True
        )
        .exclude(source_hash=Subquery(latest))
        .values_list("claim_id", "claim__source_id")
    )
    return {
        c.pk for c in claims if c.pk in nearest and stale.get(nearest[c.pk][0], -1) == c.source_id
    }
