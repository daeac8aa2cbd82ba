"""Writes of provenance traces: one ``Trace`` + one ``TraceClaim`` per claim considered."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, TypedDict, Unpack

import orjson
import psycopg
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from psycopg import pq

from verifier.models import Trace, TraceClaim, Workspace
from verifier.selectors.prepared import array_literal, prepared_cursor

TRACE_DOCUMENT_VERSION = 1
PURGE_BATCH_SIZE = 1000


@dataclass(frozen=True)
class TraceClaimRow:
    claim_pk: int
    included: bool
    exclusion_reason: str
    verification_state: str


class TraceWrite(TypedDict):
    """What one trace is written from (``trace_record``, ``trace_recording``)."""

    workspace: Workspace
    trace_id: uuid.UUID
    operation: str
    query: str
    domain_pack: str
    document: dict[str, Any]
    considered: Iterable[TraceClaimRow]


def trace_record(**trace: Unpack[TraceWrite]) -> int:
    """Write the trace and one ``TraceClaim`` per claim considered; returns the trace's
    row id. One statement (a data-modifying CTE), so it is all or nothing on its own and
    costs a served call one round trip, not a savepoint, two inserts and a release;
    prepared once per connection, with the document sent as a parameter, not quoted into
    the statement's text (encoded by orjson: ~7 µs for a retrieve's ~17 KB document, ~95
    with the standard library's encoder)."""
    with prepared_cursor() as cursor:
        cursor.execute(_TRACE_INSERT_SQL, _trace_params(trace))
        (pk,) = cursor.fetchone()
    return pk


@contextmanager
def trace_recording(**trace: Unpack[TraceWrite]) -> Iterator[None]:
    """``trace_record`` while the ``with`` block runs: the statement is sent when the block
    is entered and its outcome awaited when it is left (psycopg's pipeline mode), so the
    database writes the trace while the caller builds the rest of its answer. The block
    should not run other statements (they would queue behind the insert and wait for it).

    All or nothing with the block: inside the caller's transaction, an error of the
    insert is raised when the block is left and the caller rolls back. Outside one (a
    retrieve whose re-check demoted nothing runs in autocommit), the insert runs in a
    transaction of its own whose ``BEGIN`` travels with it and whose ``COMMIT`` (or
    ``ROLLBACK``, when the block raises) travels with the pipeline's closing sync, so it
    costs no round trip of its own; an error of the insert is raised when the block is
    left, with the transaction rolled back. With a libpq older than 14 (no pipeline mode)
    the trace is written before the block runs, as ``trace_record`` writes it."""
    if not psycopg.Pipeline.is_supported():
        trace_record(**trace)
        yield
        return
    params = _trace_params(trace)
    own = not transaction.get_connection().in_atomic_block
    with prepared_cursor() as cursor:
        try:
            with cursor.connection.pipeline():
                if own:
                    cursor.execute("BEGIN", prepare=False)
                cursor.execute(_TRACE_INSERT_SQL, params)
                try:
                    yield
                except BaseException:
                    if own:
                        cursor.execute("ROLLBACK", prepare=False)
                    raise
                if own:
                    cursor.execute("COMMIT", prepare=False)
        finally:
            # A failed insert makes the server skip the rest of the pipeline, our
            # COMMIT included: end the transaction it left open and failed.
            status = cursor.connection.info.transaction_status
            if own and status in (pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR):
                cursor.execute("ROLLBACK", prepare=False)


def _trace_params(trace: TraceWrite) -> list[Any]:
    rows = list(trace["considered"])
    return [
        trace["trace_id"],
        trace["workspace"].pk,
        trace["operation"],
        trace["query"],
        trace["domain_pack"] or "",
        orjson.dumps(trace["document"]).decode(),
        timezone.now(),
        array_literal(row.claim_pk for row in rows),
        array_literal(row.included for row in rows),
        array_literal(row.exclusion_reason[:40] for row in rows),
        array_literal(row.verification_state for row in rows),
    ]


_TRACE_INSERT_SQL = (
    f'WITH t AS (INSERT INTO "{Trace._meta.db_table}" '
    '("trace_id", "workspace_id", "operation", "query", "domain_pack", "document", '
    '"created_at") VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s) RETURNING "id"), '
    f'c AS (INSERT INTO "{TraceClaim._meta.db_table}" '
    '("trace_id", "claim_id", "included", "exclusion_reason", "verification_state") '
    'SELECT t."id", u.* FROM t, '
    "unnest(%s::bigint[], %s::boolean[], %s::text[], %s::text[]) AS u) "
    'SELECT "id" FROM t'
)


def traces_purge_expired(*, now: datetime | None = None, days: int | None = None) -> int:
    """Delete traces older than the retention period (90 days); returns how many.

    Deletes in batches of ``PURGE_BATCH_SIZE`` so a backlog never holds one long lock;
    safe to rerun.
    """
    days = settings.SPANPROOF_TRACE_RETENTION_DAYS if days is None else days
    cutoff = (now or timezone.now()) - timedelta(days=days)
    total = 0
    while True:
        ids = list(
            Trace.objects.filter(created_at__lt=cutoff).values_list("pk", flat=True)[
                :PURGE_BATCH_SIZE
            ]
        )
        if not ids:
            return total
        with transaction.atomic():
            Trace.objects.filter(pk__in=ids).delete()
        total += len(ids)
