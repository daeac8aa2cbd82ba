"""The HNSW scan keeps max(SPANPROOF_HNSW_EF_SEARCH, rows wanted) candidates."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from tests.factories import make_claim, make_source, make_workspace
from verifier.selectors.retrieval import claim_seeds_by_vector, sentence_seeds_by_vector

pytestmark = pytest.mark.django_db


def _ef_search() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW hnsw.ef_search")
        return cursor.fetchone()[0]


@pytest.mark.parametrize(
    ("setting", "limit", "expected"),
    [(40, 40, "40"), (40, 60, "60"), (100, 40, "100"), (100, 250, "250")],
)
@pytest.mark.parametrize("search", [claim_seeds_by_vector, sentence_seeds_by_vector])
def test_scan_keeps_the_larger_of_the_setting_and_the_limit(
    settings, search, setting, limit, expected
):
    settings.SPANPROOF_HNSW_EF_SEARCH = setting
    workspace = make_workspace()
    vector = np.ones(384, dtype=np.float32) / np.sqrt(384)
    # The test runs in one transaction, where the scan's local setting stays visible.
    assert search(workspace=workspace, vector=vector, limit=limit) == []
    assert _ef_search() == expected


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_setting_holds_for_the_scan_it_is_for(settings):
    # A retrieve's reads run in autocommit, where a local setting would end with its own
    # statement: the HNSW scan would then keep pgvector's default 40 candidates and
    # return at most 40 rows of the 60 asked for.
    settings.SPANPROOF_HNSW_EF_SEARCH = 40
    workspace = make_workspace()
    source = make_source(workspace)
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(70, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i, vector in enumerate(vectors):
        make_claim(source, text=f"Claim {i}.", published=True, embedding=vector)
    assert not connection.in_atomic_block
    with connection.cursor() as cursor:
        # The HNSW scan, as at scale (a table this small would be read and sorted).
        cursor.execute("SET enable_seqscan = off; SET enable_sort = off")
        try:
            rows = claim_seeds_by_vector(workspace=workspace, vector=vectors[0], limit=60)
        finally:
            cursor.execute("RESET enable_seqscan; RESET enable_sort")
    assert len(rows) == 60
    assert rows[0][1] == pytest.approx(1.0, abs=1e-5)
    assert _ef_search() == "40"  # and it did not outlive the scan
