"""Every retrieve writes a trace and a row per claim considered: their tables carry no
index that only repeats the leading column of another (migration 0019); the per-claim
rows carry no database foreign keys (migration 0020), the trace keeps its workspace's,
and the ORM still removes a claim's or a trace's rows with it."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Trace, TraceClaim
from verifier.services.traces import TraceClaimRow, trace_record


def _indexes(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE tablename = %s", [table])
        return {row[0].split(" USING ", 1)[1] for row in cursor.fetchall()}


def _foreign_keys(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'f'",
            [table],
        )
        return {row[0].split(" DEFERRABLE", 1)[0] for row in cursor.fetchall()}


def _trace_with_claims(n: int) -> Trace:
    workspace = make_workspace()
    source = make_source(workspace)
    claims = [make_claim(source, text=f"Claim {i} of {n}.") for i in range(n)]
    pk = trace_record(
        workspace=workspace,
        trace_id=uuid.uuid4(),
        operation="retrieve",
        query="q",
        domain_pack="",
        document={"version": 1},
        considered=[TraceClaimRow(c.pk, True, "", c.state) for c in claims],
    )
    return Trace.objects.get(pk=pk)


@pytest.mark.django_db
def test_trace_tables_carry_no_index_a_wider_one_covers():
    assert _indexes("verifier_trace") == {
        "btree (id)",
        "btree (trace_id)",
        "btree (created_at)",  # the retention purge
        "btree (workspace_id, created_at DESC, id DESC)",  # the audit trace list
    }
    assert _indexes("verifier_traceclaim") == {
        "btree (id)",
        "btree (trace_id, claim_id)",  # traceclaim_unique; a trace's rows
        "btree (claim_id)",  # the traces that served a claim
    }


@pytest.mark.django_db
def test_only_the_trace_row_carries_a_database_foreign_key():
    assert _foreign_keys("verifier_trace") == {
        "FOREIGN KEY (workspace_id) REFERENCES verifier_workspace(id)"
    }
    # Checked at every retrieve's commit, and the claim's check locked each served claim
    # row (KEY SHARE): gone.
    assert _foreign_keys("verifier_traceclaim") == set()


@pytest.mark.django_db
def test_the_orm_still_removes_trace_rows_with_their_claim_or_trace():
    trace_a = _trace_with_claims(2)
    trace_b = _trace_with_claims(1)
    first_claim = trace_a.considered.order_by("id").first().claim
    first_claim.delete()
    assert not TraceClaim.objects.filter(claim_id=first_claim.pk).exists()
    assert trace_a.considered.count() == 1
    trace_b.delete()
    assert not TraceClaim.objects.filter(trace_id=trace_b.pk).exists()
    assert trace_a.considered.count() == 1
