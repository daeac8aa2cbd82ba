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
from django.db import connection

from verifier.embeddings import embed_texts
from verifier.models import Claim

GROUP_COSINE_THRESHOLD: Final = 0.92
EMBED_BATCH: Final = 256  # texts per encode call (it sorts them by length within)


def claims_embed(*, claims: list[Claim]) -> int:
    """Embed ``claims`` that have no vector into the pgvector column; returns how many."""
    missing = [c for c in claims if c.embedding is None]
    for offset in range(0, len(missing), EMBED_BATCH):
        batch = missing[offset : offset + EMBED_BATCH]
        vectors = embed_texts([c.text for c in batch])
        for claim, vector in zip(batch, vectors, strict=True):
            claim.embedding = vector.tolist()
        _store_embeddings(batch)
    return len(missing)


_STORE_EMBEDDINGS = f"""
UPDATE {Claim._meta.db_table} AS c SET embedding = v.embedding::vector
FROM unnest(%s::bigint[], %s::text[]) AS v(id, embedding)
WHERE c.id = v.id
"""


def _store_embeddings(claims: list[Claim]) -> None:
    """``bulk_update(claims, ["embedding"])`` as one plain statement, the vectors in
    pgvector's text form exactly as ``VectorField`` writes them."""
    with connection.cursor() as cursor:
        cursor.execute(
            _STORE_EMBEDDINGS,
            [
                [c.pk for c in claims],
                ["[" + ",".join(map(str, c.embedding)) + "]" for c in claims],
            ],
        )


# Every embedded claim of a workspace up to an id, vectors in pgvector's binary form
# (uint16 dimensions, uint16 unused, then big-endian float32s): the exact comparison
# below reads them all, and the binary form is far cheaper to transfer and parse.
_EARLIER = f"""
SELECT id, COALESCE(duplicate_of_id, id), vector_send(embedding)
FROM {Claim._meta.db_table}
WHERE workspace_id = %s AND id <= %s AND embedding IS NOT NULL
ORDER BY id
"""


def _nearest_earlier(claims: list[Claim]) -> dict[int, tuple[int, int, float]]:
    """For each claim with a vector: (id, cluster root, cosine) of the most similar
    EARLIER claim (lower id) of its workspace, by exact comparison; none for a claim with
    no earlier embedded claim. Ties go to the lowest id."""
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
        vectors = [np.frombuffer(bytes(r[2]), dtype=">f4", offset=4) for r in rows]
        matrix = np.stack(vectors).astype(np.float64)
        norms = np.linalg.norm(matrix, axis=1)
        matrix /= np.where(norms > 0, norms, 1.0)[:, None]  # cosine, as pgvector's <=>
        position = {int(pk): i for i, pk in enumerate(ids)}
        wanted = [pk for pk in pks if pk in position]  # embedded claims of this batch
        if not wanted:
            continue
        rows_at = np.array([position[pk] for pk in wanted], dtype=np.int64)
        sims = matrix[rows_at] @ matrix.T
        # Only earlier claims count; ids ascend, so the claim at row r may match columns < r.
        sims[np.arange(len(ids))[None, :] >= rows_at[:, None]] = -np.inf
        best = sims.argmax(axis=1)
        for i, pk in enumerate(wanted):
            if rows_at[i] == 0:
                continue  # the workspace's first embedded claim has nothing earlier
            col = int(best[i])
            out[pk] = (int(ids[col]), int(roots[col]), float(sims[i, col]))
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
