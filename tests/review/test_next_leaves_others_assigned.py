"""Start reviewing / next serves a claim assigned to another member only when nothing
else is left in the filter: the riskiest claims assigned to lena were served to omar and
rita first, so lena's list shrank under her. Anyone may still open and decide it."""

from __future__ import annotations

from review.models import ReviewAssignment
from review.selectors.queue import review_queue_filtered
from review.services import review_lease_next
from tests.factories import make_user


def _next(workspace, reviewer):
    selection = review_queue_filtered(workspace=workspace, reviewer=reviewer, filters={})
    return review_lease_next(
        workspace=workspace,
        reviewer=reviewer,
        queryset=selection.claims,
        filters=selection.filters,
    )


def test_next_serves_unassigned_and_own_claims_before_anothers(
    workspace, reviewer, make_queue_claim, admin_user
):
    lena = make_user("lena", workspace=workspace, role="reviewer")
    lenas = make_queue_claim("coverage_gap")  # the riskiest
    unassigned = make_queue_claim("abstained")
    ReviewAssignment.objects.create(claim=lenas, assignee=lena, assigned_by=admin_user)

    assert _next(workspace, reviewer).claim == unassigned
    assert _next(workspace, lena).claim == lenas  # her own, by risk


def test_anothers_assigned_claim_is_served_when_nothing_else_is_left(
    workspace, reviewer, make_queue_claim, admin_user
):
    lena = make_user("lena", workspace=workspace, role="reviewer")
    lenas = make_queue_claim("abstained")
    ReviewAssignment.objects.create(claim=lenas, assignee=lena, assigned_by=admin_user)

    assert _next(workspace, reviewer).claim == lenas


def test_a_claim_assigned_to_me_is_served_by_risk_as_any_other(
    workspace, reviewer, make_queue_claim, admin_user
):
    mine = make_queue_claim("coverage_gap")
    make_queue_claim("abstained")
    ReviewAssignment.objects.create(claim=mine, assignee=reviewer, assigned_by=admin_user)

    assert _next(workspace, reviewer).claim == mine
