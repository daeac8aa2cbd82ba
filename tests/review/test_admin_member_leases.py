"""The Django admin's Membership change and delete go through the Members page's
services: a member lowered to a role that cannot decide, or removed, holds no item in the
workspace afterwards (their leases released in the change's transaction), and the
workspace keeps an admin."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import ReviewLease
from review.services import review_lease_claim
from tests.factories import make_source
from tests.review.conftest import queue_claim
from verifier.models import Membership
from verifier.services.workspaces import membership_set

pytestmark = pytest.mark.django_db


@pytest.fixture
def root_client(django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456!")
    client = Client()
    client.force_login(root)
    return client


@pytest.fixture
def held(workspace, other_workspace, source, reviewer, admin_user):
    """rita holds an item here and one in another workspace."""
    here = queue_claim(source, "abstained")
    membership_set(workspace=other_workspace, user=reviewer, role="reviewer")
    there = queue_claim(make_source(other_workspace), "abstained")
    for claim in (here, there):
        assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    return here, there


def _leased(user) -> set[str]:
    return set(ReviewLease.objects.filter(reviewer=user).values_list("claim__public_id", flat=True))


def _change(client, membership, role):
    return client.post(
        f"/admin/verifier/membership/{membership.pk}/change/",
        {"workspace": membership.workspace_id, "user": membership.user_id, "role": role},
    )


def test_lowered_to_auditor_in_the_admin_releases_the_leases_here(
    root_client, workspace, reviewer, held
):
    _here, there = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    answer = _change(root_client, rita, "auditor")
    assert answer.status_code == 302, answer.content.decode()[:2000]
    rita.refresh_from_db()
    assert rita.role == "auditor"
    assert _leased(reviewer) == {there.public_id}


def test_a_change_that_keeps_a_deciding_role_keeps_the_leases(
    root_client, workspace, reviewer, held
):
    here, there = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    assert _change(root_client, rita, "admin").status_code == 302
    assert _leased(reviewer) == {here.public_id, there.public_id}


def test_removed_in_the_admin_releases_the_leases_here(root_client, workspace, reviewer, held):
    _here, there = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    answer = root_client.post(f"/admin/verifier/membership/{rita.pk}/delete/", {"post": "yes"})
    assert answer.status_code == 302
    assert not Membership.objects.filter(pk=rita.pk).exists()
    assert _leased(reviewer) == {there.public_id}


def test_bulk_delete_in_the_admin_releases_the_leases_here(root_client, workspace, reviewer, held):
    _here, there = held
    rita = Membership.objects.get(workspace=workspace, user=reviewer)
    answer = root_client.post(
        "/admin/verifier/membership/",
        {"action": "delete_selected", "_selected_action": [rita.pk], "post": "yes"},
    )
    assert answer.status_code == 302
    assert not Membership.objects.filter(pk=rita.pk).exists()
    assert _leased(reviewer) == {there.public_id}


def test_the_last_admin_is_not_lowered_or_removed_in_the_admin(root_client, workspace, admin_user):
    ada = Membership.objects.get(workspace=workspace, user=admin_user)
    url = f"/admin/verifier/membership/{ada.pk}/"
    refusals = (
        lambda: _change(root_client, ada, "reviewer"),
        lambda: root_client.post(url + "delete/", {"post": "yes"}),
        lambda: root_client.post(
            "/admin/verifier/membership/",
            {"action": "delete_selected", "_selected_action": [ada.pk], "post": "yes"},
        ),
    )
    for refused in refusals:
        answer = refused()
        assert answer.status_code == 302  # back to the page, saying why
        assert "last admin" in root_client.get(answer["Location"]).content.decode()
        ada.refresh_from_db()
        assert ada.role == "admin"
