"""Handing out a week's work: assigning a page of claims is one write, not one per claim
(a team walk timed a page of fifty at 208 queries; the most a bulk action takes, 200
claims, grew with it), and assigning again moves the claims to the new assignee."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import ReviewAssignment
from tests.factories import make_user
from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db


def test_assigning_a_page_of_claims_takes_the_same_few_queries_as_one(
    workspace, source, reviewer, django_assert_max_num_queries
):
    admin = make_user("ada", workspace=workspace, role="admin")
    claims = [queue_claim(source, "abstained", text=f"Claim {i}.") for i in range(30)]
    client = Client()
    client.force_login(admin)
    ids = [claim.public_id for claim in claims]

    with django_assert_max_num_queries(15):
        response = client.post(
            "/review/bulk/", {"action": "assign", "assignee": str(reviewer.pk), "claims": ids}
        )
    assert response.status_code == 302
    assert set(
        ReviewAssignment.objects.filter(assignee=reviewer).values_list("claim_id", flat=True)
    ) == {claim.pk for claim in claims}

    # again, to someone else: the same rows now name the admin, who assigned them
    with django_assert_max_num_queries(15):
        client.post("/review/bulk/", {"action": "assign", "assignee": str(admin.pk), "claims": ids})
    rows = ReviewAssignment.objects.filter(claim__in=claims)
    assert rows.count() == 30
    assert set(rows.values_list("assignee_id", "assigned_by_id")) == {(admin.pk, admin.pk)}
