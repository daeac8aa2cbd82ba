"""The HNSW index covers published claims, and retrieval's query is planned on it; the
sentence index's nearest-sentence queries are planned on its own HNSW index."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection, transaction

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim
from verifier.selectors.ingest import CLAIM_INDEX_NAME, vector_index_status
from verifier.selectors.retrieval import (
    _SEEDS_BY_VECTOR_PACK_SQL,
    _SEEDS_BY_VECTOR_SQL,
    _SEEDS_SERVED_PACK_SQL,
    _SEEDS_SERVED_SQL,
    _SENTENCES_BY_VECTOR_PACK_SQL,
    _SENTENCES_BY_VECTOR_SQL,
    QueryVector,
    _limited,
    _serving_cursor,
)

PROBE = "[" + ",".join(["0"] * 383 + ["1"]) + "]"
QUERY = QueryVector(np.eye(384, dtype=np.float32)[-1])  # PROBE, as the serving path sends it

pytestmark = pytest.mark.django_db


def _plan(sql: str, params: list[object], *, serving: bool = False) -> str:
    """The plan of ``sql``; ``serving``: through the retrieve's own cursor (binary
    :class:`QueryVector` parameters), else Django's."""
    with transaction.atomic(), _serving_cursor() if serving else connection.cursor() as cursor:
        # On a near-empty table the planner rightly prefers a scan and a sort; forbid
        # both so the plan shows whether the index CAN serve the query.
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute("EXPLAIN " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


def test_index_is_partial_on_published():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [CLAIM_INDEX_NAME])
        (definition,) = cursor.fetchone()
    assert "USING hnsw" in definition
    assert "WHERE published" in definition


def test_trust_score_probe_sees_the_index_used():
    assert vector_index_status() == (True, True)


def test_the_probe_still_sees_it_with_fresh_statistics_of_a_small_table():
    """The store stage analyzes the claims table before the trust score's probe runs; with
    a handful of analyzed rows the planner would pick another index and sort."""
    source = make_source(make_workspace())
    for i in range(5):
        claim = make_claim(source, f"claim {i}", embedding=[float(i + 1)] * 384)
        Claim.objects.filter(pk=claim.pk).update(published=True)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE verifier_claim")
    assert vector_index_status() == (True, True)


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        (_SEEDS_BY_VECTOR_SQL, [QUERY, 1]),
        (_SEEDS_BY_VECTOR_PACK_SQL, [QUERY, 1, "g"]),
        (_SEEDS_SERVED_SQL, [QUERY, 1]),
        (_SEEDS_SERVED_PACK_SQL, [QUERY, 1, "g"]),
    ],
)
def test_retrieval_seed_queries_are_planned_on_the_index(sql, params):
    assert CLAIM_INDEX_NAME in _plan(_limited(sql, 10), params, serving=True)


def test_a_query_over_unpublished_claims_cannot_use_it():
    plan = _plan(
        "SELECT id FROM verifier_claim WHERE NOT published ORDER BY embedding <=> %s::vector "
        "LIMIT 10",
        [PROBE],
    )
    assert CLAIM_INDEX_NAME not in plan


@pytest.mark.parametrize(
    ("sql", "params"),
    [
        (_SENTENCES_BY_VECTOR_SQL, [QUERY, 1]),
        (_SENTENCES_BY_VECTOR_PACK_SQL, [QUERY, 1, "g"]),
    ],
)
def test_sentence_seed_queries_are_planned_on_the_sentence_index(sql, params):
    assert "sourcesentence_embedding_hnsw" in _plan(_limited(sql, 10), params, serving=True)
