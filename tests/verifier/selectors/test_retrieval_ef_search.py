"""The HNSW scan keeps max(SPANPROOF_HNSW_EF_SEARCH, rows wanted) candidates."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from tests.factories import make_workspace
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
