"""A reviewer hands an assigned item back from the item itself: a team walk found that
"Stop reviewing" left the item assigned to them (still in their "Yours") while its flash
said it was "back in the queue for anyone", and the only way to unassign oneself was to
find the row in the queue and bulk-assign it to nobody."""

from __future__ import annotations

import pytest

from review.models import ReviewAssignment, ReviewLease
from review.services import review_bulk_assign, review_lease_claim
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def assigned(workspace, reviewer, admin_user, make_queue_claim):
    claim = make_queue_claim("abstained", text="The delta gains land.")
    review_bulk_assign(workspace=workspace, claims=[claim], assignee_id=reviewer.pk, by=admin_user)
    review_lease_claim(claim=claim, reviewer=reviewer, served_reason="next")
    return claim


def _messages(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_hand_back_takes_my_assignment_off_and_frees_the_item(reviewer_client, reviewer, assigned):
    item = reviewer_client.get(f"/review/item/{assigned.public_id}/?mine=true").content.decode()
    assert 'id="btn-hand-back"' in item and "Hand back (unassign me)" in item
    response = reviewer_client.post(
        f"/review/item/{assigned.public_id}/release/?mine=true", {"hand_back": "1"}, follow=True
    )
    assert response.redirect_chain == [("/review/?mine=true", 302)]
    assert _messages(response) == [
        f"Handed back: {assigned.public_id} is no longer assigned to you; it is back in the "
        "queue for anyone."
    ]
    assert not ReviewAssignment.objects.exists() and not ReviewLease.objects.exists()
    # no longer among "Yours"
    assert f'data-claim="{assigned.public_id}"' not in response.content.decode()


def test_stop_reviewing_says_the_item_stays_assigned_to_me(reviewer_client, assigned):
    response = reviewer_client.post(f"/review/item/{assigned.public_id}/release/", follow=True)
    assert _messages(response) == [
        f"Stopped reviewing {assigned.public_id}: it stays assigned to you (Hand back on the "
        "item unassigns it)."
    ]
    assert ReviewAssignment.objects.filter(claim=assigned).exists()
    assert not ReviewLease.objects.exists()


def test_hand_back_leaves_someone_elses_assignment_alone(
    workspace, reviewer_client, reviewer, admin_user, make_queue_claim
):
    omar = make_user("omar", workspace=workspace, role="reviewer")
    claim = make_queue_claim("abstained")
    review_bulk_assign(workspace=workspace, claims=[claim], assignee_id=omar.pk, by=admin_user)
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert 'id="btn-hand-back"' not in item  # not mine to hand back
    response = reviewer_client.post(
        f"/review/item/{claim.public_id}/release/", {"hand_back": "1"}, follow=True
    )
    assert "no assignment changed" in _messages(response)[0]
    assert ReviewAssignment.objects.get(claim=claim).assignee == omar


def test_an_unassigned_item_offers_no_hand_back(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert 'id="btn-hand-back"' not in item and "Stop reviewing" in item
