"""Writes of provenance traces: one ``Trace`` + one ``TraceClaim`` per claim considered.

``POST /connect/v1/retrieve`` (and graph) build their document themselves
(``verifier.services.retrieval``, its fast path). Every other door — ``/worker/verify``,
claims/verify, RAG audits, memory checks — times its steps with :class:`TraceSteps` and
writes one trace with :func:`trace_door_record`: what was asked, the claims and spans it
used, the judge that decided, and the steps as a tree with the time of each.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypedDict, Unpack, cast

import orjson
import psycopg
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from psycopg import pq

from verifier.models import Trace, TraceClaim, Workspace
from verifier.selectors.envelopes import iso_millis
from verifier.selectors.prepared import array_literal, prepared_cursor
from verifier.trace_caller import caller_document

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
        # INSERT ... RETURNING id: always one row
        (pk,) = cast(tuple[int], cursor.fetchone())
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


# --- the other doors ----------------------------------------------------------------------


class TraceSteps:
    """The timed steps of one call, as a tree: ``with steps.step("judge"):`` inside
    another step's block is its child. Each step records its wall time in milliseconds
    and, optionally, a few facts (``detail``) about what it did."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.roots: list[dict[str, Any]] = []
        self._open: list[dict[str, Any]] = []

    @contextmanager
    def step(self, name: str, **detail: Any) -> Iterator[dict[str, Any]]:
        """Time the block as step ``name``; the yielded node takes more ``detail``."""
        node: dict[str, Any] = {"name": name, "ms": None, "detail": dict(detail), "steps": []}
        (self._open[-1]["steps"] if self._open else self.roots).append(node)
        self._open.append(node)
        started = time.perf_counter()
        try:
            yield node["detail"]
        finally:
            node["ms"] = round((time.perf_counter() - started) * 1000, 3)
            self._open.pop()

    def total_ms(self) -> float:
        return round((time.perf_counter() - self.started) * 1000, 3)

    def tree(self) -> list[dict[str, Any]]:
        """The steps as stored: ``{"name", "ms", "detail"?, "steps"?}``, empty parts left out."""

        def clean(node: dict[str, Any]) -> dict[str, Any]:
            out: dict[str, Any] = {"name": node["name"], "ms": node["ms"]}
            if node["detail"]:
                out["detail"] = node["detail"]
            if node["steps"]:
                out["steps"] = [clean(child) for child in node["steps"]]
            return out

        return [clean(node) for node in self.roots]


def maybe_step(steps: TraceSteps | None, name: str, **detail: Any) -> Any:
    """``steps.step(name)``, or a block that times nothing when there is no trace."""
    return steps.step(name, **detail) if steps is not None else nullcontext({})


@dataclass(frozen=True)
class TracedClaim:
    """A claim a door used: ``role`` says how (``verified``: the claim the call checked or
    stored; ``evidence``: one it weighed), ``included`` whether it counted, else why not."""

    pk: int
    public_id: str
    state: str
    role: str
    included: bool = True
    exclusion_reason: str = ""


@dataclass
class DoorTrace:
    """What one call of a door records beside its steps."""

    operation: str
    query: str
    request: dict[str, Any] = field(default_factory=dict)
    claims: list[TracedClaim] = field(default_factory=list)
    spans: list[dict[str, Any]] = field(default_factory=list)
    judge: dict[str, Any] | None = None
    result: dict[str, Any] = field(default_factory=dict)
    domain_pack: str = ""
    trace_id: uuid.UUID = field(default_factory=uuid.uuid4)
    # The request's caller when the trace is opened; a background job passes the one it
    # stored when it was submitted.
    caller: dict[str, str] | None = field(default_factory=caller_document)


def trace_door_record(*, workspace: Workspace, trace: DoorTrace, steps: TraceSteps) -> uuid.UUID:
    """Write the trace of one call of a door (one statement: the trace and one
    ``TraceClaim`` per claim used); returns its ``trace_id``."""
    claims: dict[int, TracedClaim] = {}
    for claim in trace.claims:
        claims.setdefault(claim.pk, claim)  # a claim is listed once, as first used
    document = {
        "version": TRACE_DOCUMENT_VERSION,
        "trace_id": str(trace.trace_id),
        "operation": trace.operation,
        "query": trace.query,
        "workspace": workspace.slug,
        "domain_pack": trace.domain_pack,
        "created_at": iso_millis(timezone.now()),
        "caller": trace.caller,
        "request": trace.request,
        "judge": trace.judge,
        "claims": [
            {
                "claim_id": c.public_id,
                "role": c.role,
                "verification_state": c.state,
                "included": c.included,
                "exclusion_reason": c.exclusion_reason or None,
            }
            for c in claims.values()
        ],
        "spans": trace.spans,
        "result": trace.result,
        "steps": steps.tree(),
        "timing": {"total_ms": steps.total_ms()},
    }
    trace_record(
        workspace=workspace,
        trace_id=trace.trace_id,
        operation=trace.operation,
        query=trace.query[:10_000],
        domain_pack=trace.domain_pack,
        document=document,
        considered=[
            TraceClaimRow(
                claim_pk=c.pk,
                included=c.included,
                exclusion_reason=c.exclusion_reason,
                verification_state=c.state,
            )
            for c in claims.values()
        ],
    )
    return trace.trace_id


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
