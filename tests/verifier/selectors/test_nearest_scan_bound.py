"""A nearest-neighbour scan that stops short still answers the nearest rows.

pgvector's iterative HNSW scan gives up after ``hnsw.max_scan_tuples`` index entries
(20,000 by default). Entries that fail the scan's filter count: other workspaces' rows
nearer the query, and rows already deleted or rolled back whose index entries wait for
a vacuum. A small workspace behind that many was served fewer seeds than asked for, or
none (and the test suite, which rolls back every test's rows, saw it in random orders).
Here the bound is lowered so a few hundred rows stand for the 20,000."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection, transaction

from tests.factories import make_claim, make_source, make_workspace
from verifier.selectors.retrieval import claim_seeds_by_vector, served_seeds_by_vector

pytestmark = pytest.mark.django_db

SCAN_BOUND = 50


def _near(rng: np.random.Generator, query: np.ndarray, scale: float) -> np.ndarray:
    v = query + scale * rng.normal(size=query.shape[0]).astype(np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def query() -> np.ndarray:
    rng = np.random.default_rng(5)
    q = rng.normal(size=384).astype(np.float32)
    return q / np.linalg.norm(q)


def _small_workspace(rng, query):
    workspace = make_workspace("small")
    source = make_source(workspace)
    mine = [
        make_claim(source, text=f"Mine {i}.", published=True, embedding=_near(rng, query, 0.6))
        for i in range(6)
    ]
    return workspace, mine


def _crowd(rng, query, count: int) -> None:
    source = make_source(make_workspace("crowd"))
    for i in range(count):  # all nearer the query than the small workspace's claims
        make_claim(source, text=f"Crowd {i}.", published=True, embedding=_near(rng, query, 0.02))


def _scan_bounded(read):
    with connection.cursor() as cursor:
        # the HNSW scan, as at scale (a table this small would be read and sorted)
        cursor.execute(
            "SET enable_seqscan = off; SET enable_sort = off; "
            f"SET hnsw.max_scan_tuples = {SCAN_BOUND}"
        )
        try:
            return read()
        finally:
            cursor.execute("RESET enable_seqscan; RESET enable_sort; RESET hnsw.max_scan_tuples")


def _expected(mine, query, limit):
    ranked = sorted(mine, key=lambda c: -float(np.dot(c.embedding, query)))
    return [c.pk for c in ranked[:limit]]


@pytest.mark.parametrize("limit", [6, 10])  # all of the small workspace's six claims
def test_other_workspaces_past_the_scan_bound(query, limit) -> None:
    rng = np.random.default_rng(7)
    _crowd(rng, query, 4 * SCAN_BOUND)
    workspace, mine = _small_workspace(rng, query)
    rows = _scan_bounded(
        lambda: claim_seeds_by_vector(workspace=workspace, vector=query, limit=limit)
    )
    assert [pk for pk, _ in rows] == _expected(mine, query, limit)
    similarities = [s for _, s in rows]
    assert similarities == sorted(similarities, reverse=True)


def test_rolled_back_rows_past_the_scan_bound(query) -> None:
    rng = np.random.default_rng(9)
    workspace, mine = _small_workspace(rng, query)
    with pytest.raises(RuntimeError), transaction.atomic():
        _crowd(rng, query, 4 * SCAN_BOUND)
        raise RuntimeError("rolled back: the index entries stay until a vacuum")
    seeds = _scan_bounded(
        lambda: served_seeds_by_vector(workspace=workspace, vector=query, limit=8)
    )
    assert [claim.pk for claim, _ in seeds] == _expected(mine, query, 8)
