"""A member who stops being a reviewer of a workspace holds no item there afterwards.

The Django admin may move a Membership row to another workspace or another user: the
member it was (that user in that workspace) is then taken out as the Members page takes
one out (their leases and assignments there released in the change's transaction, the
workspace keeps an admin). And a lease taken at the moment a member's role is lowered,
they are taken out or their row is moved is released with the others or never taken:
every lease is taken under the reviewer's membership row, which those changes lock
first. Two threads on the real database, each with its own connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from review.models import ReviewAssignment, ReviewLease
from review.services import (
    review_lease_claim,
    review_member_move,
    review_member_remove,
    review_member_role_change,
)
from tests.factories import make_user
from tests.races import WAIT_S, at_first_statement, run_together, waiting_for
from tests.review.conftest import queue_claim
from verifier.models import ActivityAction, Membership, WorkspaceEvent


@pytest.fixture
def root_client(django_user_model):
    root = django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456!")
    client = Client()
    client.force_login(root)
    return client


def _leased_in(workspace, user) -> set[str]:
    leases = ReviewLease.objects.filter(claim__workspace=workspace, reviewer=user)
    return set(leases.values_list("claim__public_id", flat=True))


def _change(client, membership, **changed):
    fields = {"workspace": membership.workspace_id, "user": membership.user_id}
    fields |= {"role": membership.role, **changed}
    return client.post(f"/admin/verifier/membership/{membership.pk}/change/", fields)


@pytest.mark.django_db
def test_moved_to_another_workspace_in_the_admin_releases_the_leases_and_assignments_left(
    root_client, workspace, other_workspace, source, reviewer, admin_user
):
    make_user("olga", workspace=other_workspace, role="admin")
    claim = queue_claim(source, "abstained")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    ReviewAssignment.objects.create(claim=claim, assignee=reviewer, assigned_by=admin_user)
    rita = Membership.objects.get(workspace=workspace, user=reviewer)

    answer = _change(root_client, rita, workspace=other_workspace.pk)

    assert answer.status_code == 302, answer.content.decode()[:2000]
    rita.refresh_from_db()
    assert (rita.workspace_id, rita.user_id, rita.role) == (
        other_workspace.pk,
        reviewer.pk,
        "reviewer",
    )
    assert _leased_in(workspace, reviewer) == set()
    assert not ReviewAssignment.objects.filter(assignee=reviewer).exists()
    actions = WorkspaceEvent.objects.filter(target="rita").values_list("workspace_id", "action")
    assert set(actions) >= {
        (workspace.pk, ActivityAction.MEMBER_REMOVED),
        (other_workspace.pk, ActivityAction.MEMBER_ADDED),
    }


@pytest.mark.django_db
def test_given_to_another_user_in_the_admin_releases_the_first_users_leases(
    root_client, workspace, source, reviewer, admin_user
):
    claim = queue_claim(source, "abstained")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")
    rex = make_user("rex")
    rita = Membership.objects.get(workspace=workspace, user=reviewer)

    answer = _change(root_client, rita, user=rex.pk)

    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert Membership.objects.get(pk=rita.pk).user_id == rex.pk
    assert _leased_in(workspace, reviewer) == set()


@pytest.mark.django_db
def test_the_last_admin_is_not_moved_away_in_the_admin(
    root_client, workspace, other_workspace, admin_user
):
    ada = Membership.objects.get(workspace=workspace, user=admin_user)

    answer = _change(root_client, ada, workspace=other_workspace.pk)

    assert answer.status_code == 302  # back to the page, saying why
    assert "last admin" in root_client.get(answer["Location"]).content.decode()
    ada.refresh_from_db()
    assert (ada.workspace_id, ada.role) == (workspace.pk, "admin")


CHANGES: dict[str, Callable[[Membership, Any], Any]] = {
    "lowered": lambda m, _elsewhere: review_member_role_change(membership=m, role="auditor"),
    "removed": lambda m, _elsewhere: review_member_remove(membership=m),
    "moved": lambda m, elsewhere: review_member_move(
        membership=Membership(pk=m.pk, workspace=elsewhere, user=m.user, role=m.role)
    ),
}


@pytest.mark.parametrize("change", list(CHANGES))
@pytest.mark.django_db(transaction=True)
def test_a_lease_taken_while_the_member_stops_reviewing_is_not_left(
    change, workspace, other_workspace, source, reviewer, admin_user
):
    """The change has released rita's leases here (not committed) when her lease request
    of that moment writes its lease: it must wait for the change and then take none."""
    make_user("olga", workspace=other_workspace, role="admin")
    claim = queue_claim(source, "abstained")
    rita = Membership.objects.select_related("user", "workspace").get(
        workspace=workspace, user=reviewer
    )
    released, leased = threading.Event(), threading.Event()

    def lower() -> None:
        CHANGES[change](rita, other_workspace)

    def lease() -> None:
        review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test")

    errors = run_together(
        (
            lower,
            at_first_statement(
                'DELETE FROM "review_reviewlease"',
                after=lambda: (released.set(), leased.wait(WAIT_S)),
            ),
        ),
        (
            lease,
            at_first_statement(
                'INSERT INTO "review_reviewlease"', before=waiting_for(released), after=leased.set
            ),
        ),
    )

    assert not errors, errors
    assert _leased_in(workspace, reviewer) == set()
