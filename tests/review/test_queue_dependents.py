"""``Claim.dependents``: kept by the database triggers of migration 0016 for queued
claims, recounted when a claim enters the queue, never overwritten by a save; trace
rows (written by every retrieve) never touch a claim row."""

from __future__ import annotations

from django.db import connection

from tests.factories import make_claim
from tests.review.conftest import queue_claim
from verifier.models import Claim, ClaimRelation, Trace, TraceClaim


def _dependents(claim) -> int:
    return Claim.objects.values_list("dependents", flat=True).get(pk=claim.pk)


def _recount(claim) -> int:
    return (
        ClaimRelation.objects.filter(to_claim=claim).count()
        + ClaimRelation.objects.filter(from_claim=claim).count()
    )


def test_relations_count_for_queued_claims(workspace, source):
    a, b, c = (queue_claim(source, "abstained", text=f"claim {i}") for i in range(3))
    ClaimRelation.objects.create(workspace=workspace, from_claim=a, to_claim=b, kind="supports")
    ClaimRelation.objects.bulk_create(
        [
            ClaimRelation(workspace=workspace, from_claim=c, to_claim=b, kind="supports"),
            ClaimRelation(workspace=workspace, from_claim=a, to_claim=b, kind="supports"),
        ],
        ignore_conflicts=True,  # the second is a duplicate edge: not inserted, not counted
    )
    assert [_dependents(x) for x in (a, b, c)] == [1, 2, 1]
    # an edge moved to another claim moves its count
    ClaimRelation.objects.filter(from_claim=c).update(to_claim=a)  # c→b is now c→a
    assert [_dependents(x) for x in (a, b, c)] == [2, 1, 1]
    ClaimRelation.objects.filter(to_claim=b, from_claim=a).delete()
    assert [_dependents(x) for x in (a, b, c)] == [1, 0, 1]
    assert all(_dependents(x) == _recount(x) for x in (a, b, c))


def test_a_save_from_the_application_keeps_the_stored_count(workspace, source):
    a, b = (queue_claim(source, "abstained", text=f"claim {i}") for i in range(2))
    stale = Claim.objects.get(pk=b.pk)  # loaded before the relation: dependents 0
    ClaimRelation.objects.create(workspace=workspace, from_claim=a, to_claim=b, kind="supports")
    stale.text = "edited"
    stale.save()
    Claim.objects.filter(pk=b.pk).update(dependents=40)
    assert _dependents(b) == 1


def test_a_claim_entering_the_queue_is_recounted(workspace, source):
    queued = queue_claim(source, "abstained", text="queued")
    settled = make_claim(source, "settled")
    Claim.objects.filter(pk=settled.pk).update(state="supported", state_reason="entailed")
    ClaimRelation.objects.create(
        workspace=workspace, from_claim=queued, to_claim=settled, kind="supports"
    )
    assert _dependents(settled) == 0  # not maintained outside the queue
    Claim.objects.filter(pk=settled.pk).update(state="unverified", state_reason="abstained")
    assert _dependents(settled) == 1


def test_trace_rows_leave_claim_rows_alone(workspace, source):
    """A retrieve writes a trace row for every claim it considered, queued ones too: no
    claim row may change (a new row version, a new ctid, would be an HNSW insert per retrieve)."""
    queued = queue_claim(source, "abstained", text="considered by a retrieve")
    before = Claim.objects.filter(pk=queued.pk).values_list("dependents", "updated_at").get()
    with connection.cursor() as cursor:
        cursor.execute("SELECT ctid::text FROM verifier_claim WHERE id = %s", [queued.pk])
        (row_version,) = cursor.fetchone()
    trace = Trace.objects.create(workspace=workspace, document={})
    TraceClaim.objects.create(trace=trace, claim=queued, included=False, verification_state="x")
    TraceClaim.objects.filter(trace=trace).delete()
    with connection.cursor() as cursor:
        cursor.execute("SELECT ctid::text FROM verifier_claim WHERE id = %s", [queued.pk])
        assert cursor.fetchone() == (row_version,)
    after = Claim.objects.filter(pk=queued.pk).values_list("dependents", "updated_at").get()
    assert after == before
