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
vectors on every run, so reruns converge on the same rows.
"""

from __future__ import annotations

from typing import Final

from django.db import connection

from verifier.embeddings import embed_texts
from verifier.models import Claim

GROUP_COSINE_THRESHOLD: Final = 0.92
EMBED_BATCH: Final = 128


def claims_embed(*, claims: list[Claim]) -> int:
    """Embed ``claims`` that have no vector into the pgvector column; returns how many."""
    missing = [c for c in claims if c.embedding is None]
    for offset in range(0, len(missing), EMBED_BATCH):
        batch = missing[offset : offset + EMBED_BATCH]
        vectors = embed_texts([c.text for c in batch])
        for claim, vector in zip(batch, vectors, strict=True):
            claim.embedding = vector.tolist()
        Claim.objects.bulk_update(batch, ["embedding"])
    return len(missing)


_NEAREST_EARLIER = f"""
SELECT c.id, n.id, n.root, 1 - n.distance
FROM {Claim._meta.db_table} c
CROSS JOIN LATERAL (
    SELECT o.id, COALESCE(o.duplicate_of_id, o.id) AS root,
           (o.embedding <=> c.embedding) AS distance
    FROM {Claim._meta.db_table} o
    WHERE o.workspace_id = c.workspace_id AND o.id < c.id AND o.embedding IS NOT NULL
    ORDER BY o.embedding <=> c.embedding
    LIMIT 1
) n
WHERE c.id = ANY(%s) AND c.embedding IS NOT NULL
ORDER BY c.id
"""


def claims_group(*, claims: list[Claim]) -> int:
    """Set ``duplicate_of`` for ``claims`` (ascending ids); returns duplicates found."""
    claims_embed(claims=claims)
    with connection.cursor() as cursor:
        cursor.execute(_NEAREST_EARLIER, [[c.pk for c in claims]])
        nearest = {row[0]: (row[1], row[2], row[3]) for row in cursor.fetchall()}
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
