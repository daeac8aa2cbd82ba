"""Bulk review actions respect other reviewers' leases, like the single-item path."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from review.models import ReviewLease
from review.services import review_bulk_exclude, review_lease_claim
from tests.factories import make_user
from tests.review.conftest import bulk_seen, queue_claim
from verifier.models import Verdict


def _two_claims_one_leased_by_otto(source, workspace):
    mine, theirs = queue_claim(source, "abstained"), queue_claim(source, "no_evidence")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    review_lease_claim(claim=theirs, reviewer=otto, served_reason="next by risk")
    return mine, theirs, otto


def test_bulk_exclude_skips_a_claim_leased_to_another_reviewer(reviewer_client, source, workspace):
    mine, theirs, otto = _two_claims_one_leased_by_otto(source, workspace)
    data = {
        "action": "exclude",
        "reason": "batch import noise",
        "claims": [mine.public_id, theirs.public_id],
        "confirm": "on",
        **bulk_seen(mine, theirs),
    }
    response = reviewer_client.post("/review/bulk/", data, follow=True)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Excluded 1 claim." in body
    assert f"Skipped 1 claim another reviewer is working on: {theirs.public_id} (otto)" in body
    mine.refresh_from_db(), theirs.refresh_from_db()
    assert mine.state == "excluded"
    assert theirs.state == "unverified" and not theirs.exclusion_reason
    lease = ReviewLease.objects.get(claim=theirs)
    assert lease.reviewer == otto  # otto's lease is untouched


def test_bulk_rejudge_skips_a_claim_leased_to_another_reviewer(
    reviewer_client, source, workspace, django_capture_on_commit_callbacks
):
    mine, theirs, _ = _two_claims_one_leased_by_otto(source, workspace)
    before = {c.pk: c.verdicts.count() for c in (mine, theirs)}
    data = {
        "action": "rejudge",
        "claims": [mine.public_id, theirs.public_id],
        "confirm": "on",
        **bulk_seen(mine, theirs),
    }
    with django_capture_on_commit_callbacks(execute=True):  # the job's task, run eagerly
        body = reviewer_client.post("/review/bulk/", data, follow=True).content.decode()
    assert "Sent 1 claim back to the judge." in body
    assert theirs.public_id in body and "Skipped 1" in body
    assert Verdict.objects.filter(claim=mine).count() == before[mine.pk] + 1
    assert Verdict.objects.filter(claim=theirs).count() == before[theirs.pk]
    assert ReviewLease.objects.filter(claim=theirs).exists()


def test_an_expired_lease_does_not_block_and_is_cleared(reviewer, source, workspace):
    _, theirs, _ = _two_claims_one_leased_by_otto(source, workspace)
    ReviewLease.objects.filter(claim=theirs).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    outcome = review_bulk_exclude(claims=[theirs], reviewer=reviewer, reason="noise")
    assert [c.pk for c in outcome.done] == [theirs.pk] and outcome.held == []
    assert not ReviewLease.objects.filter(claim=theirs).exists()


def test_my_own_lease_does_not_block(reviewer, source):
    claim = queue_claim(source, "abstained")
    review_lease_claim(claim=claim, reviewer=reviewer, served_reason="t")
    outcome = review_bulk_exclude(claims=[claim], reviewer=reviewer, reason="noise")
    assert len(outcome.done) == 1 and outcome.held == []
    assert not ReviewLease.objects.filter(claim=claim).exists()
