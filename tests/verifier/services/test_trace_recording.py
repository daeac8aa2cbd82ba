"""``trace_recording``: the trace ``trace_record`` writes, sent before the caller's block
runs and awaited after it (psycopg's pipeline mode)."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from django.db import connection, transaction
from psycopg import pq

from tests.factories import make_claim, make_source, make_workspace, trace_committed
from verifier.models import Trace, TraceClaim
from verifier.services.traces import TraceClaimRow, trace_recording

pytestmark = pytest.mark.django_db


def _arguments(trace_id: uuid.UUID) -> dict:
    workspace = make_workspace()
    source = make_source(workspace)
    claims = [make_claim(source, text=f"Claim {i}.") for i in range(3)]
    return {
        "workspace": workspace,
        "trace_id": trace_id,
        "operation": "retrieve",
        "query": "Where does sediment settle?",
        "domain_pack": "",
        "document": {"version": 1, "claims": [c.public_id for c in claims]},
        "considered": [
            TraceClaimRow(c.pk, i == 0, "" if i == 0 else "budget", c.state)
            for i, c in enumerate(claims)
        ],
    }


def test_the_block_runs_while_the_insert_is_in_flight_and_the_trace_is_written():
    trace_id = uuid.uuid4()
    arguments = _arguments(trace_id)
    seen = []
    with trace_recording(**arguments):
        # The insert went out in pipeline mode; its result is read when the block ends.
        seen.append(connection.connection.pgconn.pipeline_status)
    assert seen[0] == pq.PipelineStatus.ON
    trace = Trace.objects.get(trace_id=trace_id)
    assert connection.connection.pgconn.pipeline_status == pq.PipelineStatus.OFF
    assert trace.document == arguments["document"]
    assert trace.query == arguments["query"]
    rows = TraceClaim.objects.filter(trace=trace).order_by("claim_id")
    assert [(r.claim_id, r.included, r.exclusion_reason) for r in rows] == [
        (row.claim_pk, row.included, row.exclusion_reason) for row in arguments["considered"]
    ]


def _recorded_and_a_second_with_its_id() -> tuple[dict, dict]:
    """The arguments of a trace recorded, and of a second trace with the same trace id
    (the unique constraint refuses it) over other claims."""
    trace_id = uuid.uuid4()
    first = _arguments(trace_id)
    with trace_recording(**first):
        pass
    return first, _arguments(trace_id)


def _rows_kept(arguments: dict) -> bool:
    """Whether any ``TraceClaim`` row of ``arguments``' claims is stored."""
    claims = [row.claim_pk for row in arguments["considered"]]
    return TraceClaim.objects.filter(claim_id__in=claims).exists()


def test_an_insert_error_is_raised_when_the_block_is_left_and_rolls_back():
    first, again = _recorded_and_a_second_with_its_id()
    ran = []
    with (
        pytest.raises(psycopg.errors.UniqueViolation),
        transaction.atomic(),
        trace_recording(**again),
    ):
        ran.append(True)
    assert ran == [True]
    # The earlier trace and its rows are untouched; nothing of the second was kept.
    trace = Trace.objects.get(trace_id=first["trace_id"])
    assert trace.workspace_id == first["workspace"].pk
    assert TraceClaim.objects.filter(trace=trace).count() == 3
    assert not _rows_kept(again)


def test_without_pipeline_mode_the_trace_is_written_before_the_block(monkeypatch):
    monkeypatch.setattr(psycopg.Pipeline, "is_supported", classmethod(lambda cls: False))
    trace_id = uuid.uuid4()
    inside = []
    with trace_recording(**_arguments(trace_id)):
        inside.append(connection.connection.pgconn.pipeline_status)
        inside.append(Trace.objects.filter(trace_id=trace_id).exists())
    assert inside == [pq.PipelineStatus.OFF, True]
    assert TraceClaim.objects.filter(trace__trace_id=trace_id).count() == 3


def test_the_trace_rows_keep_reasons_with_quotes_and_backslashes():
    trace_id = uuid.uuid4()
    arguments = _arguments(trace_id)
    odd = ['a "quoted", {braced} reason', "back\\slash", "NULL"]
    arguments["considered"] = [
        TraceClaimRow(row.claim_pk, row.included, reason, row.verification_state)
        for row, reason in zip(arguments["considered"], odd, strict=True)
    ]
    with transaction.atomic(), trace_recording(**arguments):
        pass
    rows = TraceClaim.objects.filter(trace__trace_id=trace_id).order_by("claim_id")
    assert list(rows.values_list("exclusion_reason", flat=True)) == odd


# Outside any transaction of the caller's (a retrieve whose re-check demoted nothing):
# the insert runs in a transaction of its own, committed or rolled back with the block.


def _idle() -> bool:
    return connection.connection.info.transaction_status == pq.TransactionStatus.IDLE


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_trace_is_committed_when_the_block_is_left():
    trace_id = uuid.uuid4()
    arguments = _arguments(trace_id)
    seen = []
    with trace_recording(**arguments):
        seen.append(trace_committed(trace_id))  # in flight: not visible to anyone else yet
    assert seen == [False]
    assert trace_committed(trace_id) and _idle()
    assert TraceClaim.objects.filter(trace__trace_id=trace_id).count() == 3


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_error_in_the_block_leaves_no_trace():
    trace_id = uuid.uuid4()
    arguments = _arguments(trace_id)
    with (
        pytest.raises(RuntimeError, match="building the answer failed"),
        trace_recording(**arguments),
    ):
        raise RuntimeError("building the answer failed")
    assert not trace_committed(trace_id) and _idle()
    assert not _rows_kept(arguments)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_insert_error_is_raised_and_the_connection_stays_usable():
    first, again = _recorded_and_a_second_with_its_id()
    ran = []
    with pytest.raises(psycopg.errors.UniqueViolation), trace_recording(**again):
        ran.append(True)
    assert ran == [True] and _idle()
    assert Trace.objects.filter(trace_id=first["trace_id"]).count() == 1
    assert not _rows_kept(again)
    other = uuid.uuid4()
    with trace_recording(**_arguments(other)):
        pass
    assert trace_committed(other)
