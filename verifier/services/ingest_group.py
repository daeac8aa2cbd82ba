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
vectors on every run, so reruns converge on the same rows. The nearest earlier claim
comes from ``selectors.near_duplicates`` (which says how it is found). A claim of the
same source whose span is in an earlier version with other text (its sentence changed
in the version this claim came from: "1962" became "1965") is no claim to group under:
the new claim takes its place, and is not counted a duplicate of it.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from django.db import connection, transaction

from verifier.embeddings import EMBEDDING_DIMENSIONS, embed_texts, id_vector_copy_binary
from verifier.models import Claim
from verifier.selectors.claims import claim_pks_without_vectors
from verifier.selectors.near_duplicates import (
    claims_nearest_earlier,
    claims_superseded_in_own_source,
)

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


def claims_group(*, claims: list[Claim]) -> int:
    """Set ``duplicate_of`` for ``claims`` (ascending ids); returns duplicates found."""
    claims_embed(claims=claims)
    nearest = claims_nearest_earlier(claims, min_cosine=GROUP_COSINE_THRESHOLD)
    for pk in claims_superseded_in_own_source(claims, nearest):
        del nearest[pk]
    roots: dict[int, int | None] = {}
    for claim in claims:
        found = nearest.get(claim.pk)
        if found is None:
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
