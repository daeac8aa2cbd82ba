"""The retrieve's query vector travels in pgvector's binary form: the database reads the
same float32 values its text form gives, so scores and order are unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from django.db import connection

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim
from verifier.selectors.retrieval import QueryVector, _serving_cursor, claim_seeds_by_vector

pytestmark = pytest.mark.django_db


def _unit(rng: np.random.Generator) -> np.ndarray:
    vector = rng.standard_normal(384).astype(np.float32)
    return vector / np.linalg.norm(vector)


def test_the_binary_parameter_is_the_vector_the_text_form_gives():
    vector = _unit(np.random.default_rng(7))
    text = "[" + ",".join(repr(float(x)) for x in vector) + "]"
    # Past psycopg's prepare threshold too: a prepared statement keeps the parameter's
    # inferred type.
    for _ in range(7):
        with _serving_cursor() as cursor:
            cursor.execute(
                "SELECT %b::vector::text = %s::vector::text", [QueryVector(vector), text]
            )
            assert cursor.fetchone() == (True,)


def test_seed_scores_are_the_exact_cosines_of_the_stored_vectors():
    rng = np.random.default_rng(11)
    source = make_source(make_workspace())
    vectors = [_unit(rng) for _ in range(6)]
    pks = []
    for i, vector in enumerate(vectors):
        claim = make_claim(source, f"Claim number {i}.", embedding=vector.tolist())
        pks.append(claim.pk)
    Claim.objects.filter(pk__in=pks).update(published=True)
    query = _unit(rng)
    with connection.cursor() as cursor:
        # Exact search (the test is about the parameter, not the index): HNSW's candidate
        # list may fill with other workspaces' claims the test database holds.
        cursor.execute("SET LOCAL enable_indexscan = off")
    seeds = claim_seeds_by_vector(workspace=source.workspace, vector=query, limit=6)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, 1 - (embedding <=> %s::vector) FROM verifier_claim WHERE id = ANY(%s)",
            ["[" + ",".join(repr(float(x)) for x in query) + "]", pks],
        )
        by_text = dict(cursor.fetchall())
    assert [pk for pk, _ in seeds] == sorted(pks, key=lambda pk: -by_text[pk])
    assert {pk: score for pk, score in seeds} == pytest.approx(by_text, abs=1e-12)
    expected = {pk: float(np.dot(v, query)) for pk, v in zip(pks, vectors, strict=True)}
    assert {pk: score for pk, score in seeds} == pytest.approx(expected, abs=1e-5)
