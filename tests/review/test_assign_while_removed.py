"""An admin assigns claims to a reviewer while another admin takes that reviewer out of
the workspace. Taking a member out releases their assignments there ("Assigned to"
names nobody who is no longer here): the assignment holds the member's row until it
commits, so the removal waits for it and takes it out too. Unheld, the assignment read
the member, the removal committed, and the assignment was written after it, naming a
member who is no longer here. Two threads on the real database, each with its own
connection."""

from __future__ import annotations

import threading

import pytest

from review.models import ReviewAssignment
from review.services import review_bulk_assign, review_member_remove
from tests.factories import make_claim
from tests.races import WAIT_S, at_first_statement, run_together
from verifier.models import Membership

READ_ASSIGNEE = ('FROM "verifier_membership"',)


@pytest.mark.django_db(transaction=True)
def test_a_member_taken_out_while_claims_are_assigned_to_them_keeps_none(
    source, admin_user, reviewer
) -> None:
    claims = [make_claim(source, f"Claim {n} to assign.") for n in range(3)]
    membership = Membership.objects.get(workspace=source.workspace, user=reviewer)
    assignee_read, removed = threading.Event(), threading.Event()

    def assign() -> None:
        review_bulk_assign(
            workspace=source.workspace, claims=claims, assignee_id=reviewer.pk, by=admin_user
        )

    def remove() -> None:
        assignee_read.wait(WAIT_S)
        review_member_remove(membership=membership)
        removed.set()

    errors = run_together(
        # the assignment writes once the removal has committed (or after a while, when
        # the removal waits for it)
        (
            assign,
            at_first_statement(
                *READ_ASSIGNEE, after=lambda: (assignee_read.set(), removed.wait(WAIT_S))
            ),
        ),
        (remove, at_first_statement("never")),
    )

    assert not errors, errors
    assert not Membership.objects.filter(workspace=source.workspace, user=reviewer).exists()
    assert not ReviewAssignment.objects.filter(assignee=reviewer).exists()
