"""A small workspace's nearest neighbours are found even when other workspaces crowd the
shared HNSW index: the scan goes on until enough rows of the workspace pass its filter
(pgvector's iterative scan), instead of keeping ``ef_search`` candidates of which none
may be the workspace's."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from tests.factories import make_claim, make_source, make_workspace
from verifier.selectors.retrieval import claim_seeds_by_vector

pytestmark = pytest.mark.django_db


def test_a_small_workspace_is_not_crowded_out_by_a_large_one(settings) -> None:
    settings.SPANPROOF_HNSW_EF_SEARCH = 40
    rng = np.random.default_rng(11)
    query = rng.normal(size=384).astype(np.float32)
    query /= np.linalg.norm(query)

    def near(scale: float) -> np.ndarray:
        v = query + scale * rng.normal(size=384).astype(np.float32)
        return v / np.linalg.norm(v)

    big = make_source(make_workspace("big"))
    for i in range(120):  # much closer to the query than the small workspace's claims
        make_claim(big, text=f"Crowd {i}.", published=True, embedding=near(0.02))
    small_workspace = make_workspace("small")
    small = make_source(small_workspace)
    mine = [
        make_claim(small, text=f"Mine {i}.", published=True, embedding=near(0.6)).pk
        for i in range(3)
    ]
    with connection.cursor() as cursor:
        # the HNSW scan, as at scale (a table this small would be read and sorted)
        cursor.execute("SET enable_seqscan = off; SET enable_sort = off")
        try:
            rows = claim_seeds_by_vector(workspace=small_workspace, vector=query, limit=10)
        finally:
            cursor.execute("RESET enable_seqscan; RESET enable_sort")
    assert sorted(pk for pk, _ in rows) == sorted(mine)
    similarities = [s for _, s in rows]
    assert similarities == sorted(similarities, reverse=True)  # nearest first
