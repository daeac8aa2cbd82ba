"""The statements every API call and retrieve runs are prepared on the server after
``SPANPROOF_DB_PREPARE_THRESHOLD`` runs, and the serving ones then reuse one plan."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from django.conf import settings
from django.db import connection
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim
from verifier.selectors.prepared import array_literal
from verifier.selectors.retrieval import served_claims, served_seeds_by_vector
from verifier.selectors.workspaces import api_key_authenticate
from verifier.services.traces import TraceClaimRow, trace_record
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db


def _prepared() -> dict[str, tuple[int, int]]:
    """{statement text: (generic plans, custom plans)} prepared on this connection."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        return {statement.strip(): (generic, custom) for statement, generic, custom in cursor}


def _plans(prefix: str, *, leaving_out: str = "\0") -> tuple[str, int, int]:
    found = [
        (s, *plans)
        for s, plans in _prepared().items()
        if s.startswith(prefix) and leaving_out not in s
    ]
    assert len(found) == 1, f"one prepared statement starting {prefix!r}: {found}"
    return found[0]


def test_the_threshold_comes_from_the_settings():
    connection.ensure_connection()
    configured = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    assert configured == 5
    assert connection.connection.prepare_threshold == configured


def _published_claims(workspace, count: int) -> list[Claim]:
    rng = np.random.default_rng(3)
    source = make_source(workspace)
    claims = []
    for i in range(count):
        vector = rng.standard_normal(384).astype(np.float32)
        claims.append(make_claim(source, f"Claim {i}.", embedding=vector.tolist()))
    Claim.objects.filter(pk__in=[c.pk for c in claims]).update(published=True)
    return claims


def test_the_seeds_statement_is_prepared_and_reuses_one_plan():
    workspace = make_workspace()
    _published_claims(workspace, 4)
    query = np.ones(384, dtype=np.float32) / np.sqrt(384)
    threshold = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]
    # psycopg prepares it at its threshold-th run; PostgreSQL plans a prepared
    # statement afresh for its first five executions, then keeps the generic plan if
    # that costs no more.
    runs = threshold + 8
    for _ in range(runs):
        served_seeds_by_vector(workspace=workspace, vector=query, limit=4)
    # the HNSW statement; its exact form runs too where the scan came back short (rows
    # that earlier tests rolled back still fill the index until a vacuum)
    statement, generic, custom = _plans("WITH c AS MATERIALIZED", leaving_out=") + 0 AS")
    assert custom <= 5 and generic >= 1
    # The limit is written in: a parameter there makes PostgreSQL's generic plan guess a
    # tenth of the table (at 1,000,000 claims it hash-joined whole tables, so the server
    # kept planning the statement on every call; bench/retrieve.py).
    assert 'ORDER BY "distance" ASC LIMIT 4\n' in statement


def test_the_claim_load_and_the_key_lookup_and_the_trace_are_prepared():
    workspace = make_workspace()
    claims = _published_claims(workspace, 3)
    created = api_key_create(workspace=workspace, name="k")
    runs = settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"] + 1
    for _ in range(runs):
        served_claims(workspace=workspace, claim_pks=[c.pk for c in claims])
        assert api_key_authenticate(raw_key=created.raw_key) is not None
        trace_record(
            workspace=workspace,
            trace_id=uuid.uuid4(),
            operation="retrieve",
            query="q",
            domain_pack="",
            document={"version": 1},
            considered=[TraceClaimRow(claims[0].pk, True, "", "unverified")],
        )
    statements = _prepared()
    assert any(
        'c."workspace_id" = $1 AND c."published" AND c."id" = ANY($2::bigint[])' in s
        for s in statements
    )
    assert any("verifier_apikey" in s for s in statements)
    assert any(s.startswith('WITH t AS (INSERT INTO "verifier_trace"') for s in statements)


@hypothesis_settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    texts=st.lists(
        st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12), max_size=6
    ),
    numbers=st.lists(st.integers(-(2**63), 2**63 - 1), max_size=6),
    flags=st.lists(st.booleans(), max_size=6),
)
def test_array_literals_read_back_as_the_values_they_were_made_of(texts, numbers, flags):
    """Quotes, backslashes, braces, commas, blanks, "NULL" and empty strings included."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s::text[], %s::bigint[], %s::boolean[]",
            [array_literal(texts), array_literal(numbers), array_literal(flags)],
        )
        assert cursor.fetchone() == (texts, numbers, flags)
