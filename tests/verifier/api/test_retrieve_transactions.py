"""A retrieve's writes and the transactions they run in: outside any transaction of the
test's own (``transaction=True``), as a served call runs them."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from tests.factories import tamper, trace_committed
from tests.verifier.api.conftest import judged_claim
from verifier.models import Claim, StateEvent, Trace, TraceClaim
from verifier.services import retrieval

pytestmark = pytest.mark.django_db(transaction=True)

RETRIEVE = "/connect/v1/retrieve"
WIDE = {"include": ["supported", "inferred", "unverified"]}


def post(client, body):
    return client.post(RETRIEVE, body, content_type="application/json")


def test_the_trace_is_committed_before_the_answer_leaves(api, delta):
    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    body = post(api, {"query": "where does sediment settle?"}).json()
    assert len(body["verified_claims"]) == 1
    assert trace_committed(body["trace_id"])
    assert not connection.in_atomic_block
    assert connection.connection.info.transaction_status.name == "IDLE"


def _colliding_trace_id(monkeypatch, workspace) -> uuid.UUID:
    """Make the next retrieve's trace insert fail: its trace id is one already stored."""
    taken = Trace.objects.create(workspace=workspace, query="earlier", document={})
    from_request = retrieval.ServeRun.from_request

    def colliding(**kwargs):
        run = from_request(**kwargs)
        run.trace_id = taken.trace_id
        return run

    monkeypatch.setattr(retrieval.ServeRun, "from_request", colliding)
    return taken.trace_id


def test_a_failed_trace_insert_rolls_back_the_demotions_of_the_same_call(
    api, delta, workspace, monkeypatch
):
    claim = judged_claim(
        delta,
        "Storm surges can strip a season of growth.",
        quote="Storm surges can strip a season of growth",
    )
    for version in delta.versions.all():
        tamper(version, version.text.replace("Storm", "Flood"))
    _colliding_trace_id(monkeypatch, workspace)
    api.raise_request_exception = False
    resp = post(api, {"query": "storm surges", "verification_policy": WIDE})
    assert resp.status_code == 500
    claim.refresh_from_db()
    # The demotion was written in the call's transaction and went with the trace.
    assert claim.state == "supported"
    assert not StateEvent.objects.filter(claim=claim, to_state="unverified").exists()
    assert Trace.objects.count() == 1 and not TraceClaim.objects.exists()

    # The next call (a fresh trace id) demotes and records it.
    monkeypatch.undo()
    body = post(api, {"query": "storm surges", "verification_policy": WIDE}).json()
    assert body["verified_claims"][0]["state"] == "unverified"
    claim.refresh_from_db()
    assert claim.state == "unverified"
    assert trace_committed(body["trace_id"])


def test_a_failed_trace_insert_without_demotions_writes_nothing(api, delta, workspace, monkeypatch):
    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    _colliding_trace_id(monkeypatch, workspace)
    api.raise_request_exception = False
    assert post(api, {"query": "where does sediment settle?"}).status_code == 500
    assert Trace.objects.count() == 1 and not TraceClaim.objects.exists()
    assert Claim.objects.get().state == "supported"
    # The connection is usable again: the next call serves and records.
    monkeypatch.undo()
    body = post(api, {"query": "where does sediment settle?"}).json()
    assert len(body["verified_claims"]) == 1
    assert trace_committed(body["trace_id"])


def test_an_answer_that_fails_after_the_trace_was_sent_leaves_no_trace(api, delta, monkeypatch):
    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )

    def broken(served):
        raise RuntimeError("the context block could not be built")

    monkeypatch.setattr(retrieval, "context_block", broken)
    api.raise_request_exception = False
    assert post(api, {"query": "where does sediment settle?"}).status_code == 500
    assert not Trace.objects.exists() and not TraceClaim.objects.exists()
    assert connection.connection.info.transaction_status.name == "IDLE"
