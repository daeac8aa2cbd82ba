"""Every retrieve writes a trace and a row per claim considered: their tables carry no
index that only repeats the leading column of another (migration 0019), and keep their
foreign keys."""

from __future__ import annotations

import pytest
from django.db import connection


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
def test_trace_tables_keep_their_foreign_keys():
    assert _foreign_keys("verifier_trace") == {
        "FOREIGN KEY (workspace_id) REFERENCES verifier_workspace(id)"
    }
    assert _foreign_keys("verifier_traceclaim") == {
        "FOREIGN KEY (trace_id) REFERENCES verifier_trace(id)",
        "FOREIGN KEY (claim_id) REFERENCES verifier_claim(id)",
    }
