"""A user who is deactivated (the Django admin's User page, or any code that saves
``is_active`` False) is not reviewing: their leases are released at once
(``review.signals``), so others may take those items instead of reading "rita is
reviewing this claim" until the leases run out."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from review.models import ReviewLease
from review.services import review_lease_claim
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _reviewing(client: Client, claim) -> str:
    return client.get(f"/review/item/{claim.public_id}/").content.decode()


def _admin_change_form(user) -> dict[str, str]:
    """The Django admin's User change form as it would be posted, ``is_active`` unticked."""
    return {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_staff": "on" if user.is_staff else "",
        "is_superuser": "",
        "last_login_0": "",
        "last_login_1": "",
        "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "initial-date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
        "initial-date_joined_1": user.date_joined.strftime("%H:%M:%S"),
        "_save": "Save",
    }


def test_deactivating_a_reviewer_in_the_admin_releases_their_leases(
    workspace, reviewer, make_queue_claim
):
    claim = make_queue_claim("abstained")
    kept = make_queue_claim("contradicted")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    assert review_lease_claim(claim=kept, reviewer=otto, served_reason="test")
    otto_client = Client()
    otto_client.force_login(otto)
    assert "<strong>rita</strong> is reviewing this claim" in _reviewing(otto_client, claim)

    boss = get_user_model().objects.create_superuser("boss", password="pw-for-tests-123")
    admin_client = Client()
    admin_client.force_login(boss)
    response = admin_client.post(
        f"/admin/auth/user/{reviewer.pk}/change/", _admin_change_form(reviewer)
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    reviewer.refresh_from_db()
    assert not reviewer.is_active
    assert not ReviewLease.objects.filter(reviewer=reviewer).exists()
    assert ReviewLease.objects.filter(reviewer=otto, claim=kept).exists()  # others' stay
    assert "is reviewing this claim" not in _reviewing(otto_client, claim)
    assert review_lease_claim(claim=claim, reviewer=otto, served_reason="test") is not None


def test_deactivating_a_reviewer_in_code_releases_their_leases(reviewer, make_queue_claim):
    claim = make_queue_claim("abstained")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    reviewer.is_active = False
    reviewer.save(update_fields=["is_active"])
    assert not ReviewLease.objects.filter(reviewer=reviewer).exists()


def test_saving_an_active_reviewer_keeps_their_leases(reviewer, make_queue_claim):
    claim = make_queue_claim("abstained")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    reviewer.first_name = "Rita"
    reviewer.save()
    assert ReviewLease.objects.filter(reviewer=reviewer, claim=claim).exists()


def test_an_inactive_user_takes_no_lease(workspace, reviewer, make_queue_claim):
    """The lease services' own check (``_deciding_in``, under the membership row lock):
    a lease asked for by a user saved inactive meanwhile is not taken."""
    claim = make_queue_claim("abstained")
    reviewer.is_active = False
    reviewer.save(update_fields=["is_active"])
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test") is None
    assert not ReviewLease.objects.filter(claim=claim).exists()
