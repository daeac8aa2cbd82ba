"""A reviewer who signs out is not reviewing: their leases are released (Django's
``user_logged_out``, ``review.signals``), so another reviewer may take the item at once
instead of reading "rita is reviewing this claim" until the lease runs out."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import ReviewLease
from review.services import review_lease_claim
from tests.factories import make_source, make_user
from tests.review.conftest import queue_claim
from verifier.services.workspaces import membership_set

pytestmark = pytest.mark.django_db


def test_signing_out_releases_the_reviewers_leases(
    reviewer_client, reviewer, workspace, other_workspace, make_queue_claim
):
    claim = make_queue_claim("abstained")
    served = reviewer_client.post("/review/start/")
    assert claim.public_id in served["Location"]
    membership_set(workspace=other_workspace, user=reviewer, role="reviewer")
    there = queue_claim(make_source(other_workspace), "abstained")
    assert review_lease_claim(claim=there, reviewer=reviewer, served_reason="test")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    kept = make_queue_claim("contradicted")
    assert review_lease_claim(claim=kept, reviewer=otto, served_reason="test")
    otto_client = Client()
    otto_client.force_login(otto)
    assert "<strong>rita</strong> is reviewing this claim" in (
        otto_client.get(f"/review/item/{claim.public_id}/").content.decode()
    )

    signed_out = reviewer_client.post("/accounts/logout/")

    assert signed_out.status_code == 302
    assert not ReviewLease.objects.filter(reviewer=reviewer).exists()
    assert ReviewLease.objects.filter(reviewer=otto, claim=kept).exists()  # others' stay
    assert review_lease_claim(claim=claim, reviewer=otto, served_reason="test") is not None


def test_signing_out_while_signed_out_is_harmless(client, make_queue_claim, reviewer):
    claim = make_queue_claim("abstained")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    assert client.post("/accounts/logout/").status_code == 302
    assert ReviewLease.objects.filter(reviewer=reviewer).exists()
