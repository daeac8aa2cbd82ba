"""A member whose role can no longer decide, or who is taken out of the workspace, holds
no item: their leases in the workspace are released with the change, in its transaction,
so nobody else reads "rita is reviewing this claim" for up to the lease's 15 minutes.
A member who still decides keeps theirs; another workspace's leases stay."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import ReviewAssignment, ReviewLease
from review.services import review_lease_claim
from tests.factories import make_source, make_user
from tests.review.conftest import queue_claim
from verifier.models import Membership
from verifier.services.workspaces import membership_set

pytestmark = pytest.mark.django_db

HELD = "<strong>rita</strong> is reviewing this claim"


@pytest.fixture
def held(workspace, other_workspace, source, reviewer):
    """rita holds an item here and one in another workspace; otto reviews here too."""
    here = queue_claim(source, "abstained")
    membership_set(workspace=other_workspace, user=reviewer, role="reviewer")
    there = queue_claim(make_source(other_workspace), "abstained")
    for claim in (here, there):
        assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    client = Client()
    client.force_login(otto)
    assert HELD in client.get(f"/review/item/{here.public_id}/").content.decode()
    return here, there, otto, client


def _leased(reviewer) -> set[str]:
    return set(
        ReviewLease.objects.filter(reviewer=reviewer).values_list("claim__public_id", flat=True)
    )


def test_a_reviewer_lowered_to_auditor_holds_nothing_here(
    admin_client_ws, workspace, reviewer, held
):
    here, there, otto, client = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    answer = admin_client_ws.post(f"/audit/members/{rita.pk}/role/", {"role": "auditor"})
    assert answer.status_code == 302
    assert _leased(reviewer) == {there.public_id}  # another workspace's lease stays
    assert HELD not in client.get(f"/review/item/{here.public_id}/").content.decode()
    assert review_lease_claim(claim=here, reviewer=otto, served_reason="test") is not None


def test_a_role_that_still_decides_keeps_the_lease(admin_client_ws, workspace, reviewer, held):
    here, there, _, _ = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    admin_client_ws.post(f"/audit/members/{rita.pk}/role/", {"role": "admin"})
    rita.refresh_from_db()
    assert rita.role == "admin"
    assert _leased(reviewer) == {here.public_id, there.public_id}


def test_a_member_taken_out_holds_nothing_here(
    admin_client_ws, admin_user, workspace, reviewer, held
):
    here, there, otto, _ = held
    for claim in (here, there):
        ReviewAssignment.objects.create(claim=claim, assignee=reviewer, assigned_by=admin_user)
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    answer = admin_client_ws.post(f"/audit/members/{rita.pk}/remove/", {"confirmed": "1"})
    assert answer.status_code == 302
    assert not Membership.objects.filter(pk=rita.pk).exists()
    assert _leased(reviewer) == {there.public_id}
    assert review_lease_claim(claim=here, reviewer=otto, served_reason="test") is not None
    # nor is anything assigned to them here any more (another workspace's stays)
    assigned = ReviewAssignment.objects.filter(assignee=reviewer)
    assert list(assigned.values_list("claim__public_id", flat=True)) == [there.public_id]


def test_a_refused_change_releases_nothing(admin_client_ws, admin_user, workspace, source):
    """The last admin cannot step down: the refusal rolls back, their lease stays."""
    claim = queue_claim(source, "abstained")
    assert review_lease_claim(claim=claim, reviewer=admin_user, served_reason="test")
    own = Membership.objects.get(workspace=workspace, user=admin_user)
    for url, data in (
        (f"/audit/members/{own.pk}/role/", {"role": "auditor", "confirmed": "1"}),
        (f"/audit/members/{own.pk}/remove/", {"confirmed": "1"}),
    ):
        admin_client_ws.post(url, data)
        own.refresh_from_db()
        assert own.role == "admin"
        assert _leased(admin_user) == {claim.public_id}
