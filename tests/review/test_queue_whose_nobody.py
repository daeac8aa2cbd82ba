"""An admin handing out a week's work filters the queue to the claims nobody is assigned
yet (a team walk found only "Anyone's" and "Mine": at a few thousand claims, what was
still to hand out could only be found by reading the Assigned to column page by page)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from review.services import review_bulk_assign
from tests.factories import make_user
from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db


def _listed(body: str) -> set[str]:
    return set(re.findall(r'<tr data-claim="([^"]+)"', body))


def test_whose_nobody_lists_the_claims_no_one_is_assigned(workspace, source, reviewer):
    admin = make_user("ada", workspace=workspace, role="admin")
    assigned = queue_claim(source, "abstained", text="Assigned to the reviewer.")
    free = queue_claim(source, "abstained", text="Nobody has it yet.")
    review_bulk_assign(workspace=workspace, claims=[assigned], assignee_id=reviewer.pk, by=admin)
    client = Client()
    client.force_login(admin)

    body = client.get("/review/?mine=nobody").content.decode()
    assert _listed(body) == {free.public_id}
    assert '<option value="nobody" selected>Nobody&#x27;s: not assigned</option>' in body
    # Mine, as bookmarked, still means mine
    mine = Client()
    mine.force_login(reviewer)
    assert _listed(mine.get("/review/?mine=true").content.decode()) == {assigned.public_id}


def test_start_reviewing_nobodys_serves_an_unassigned_claim_and_says_by_which_filter(
    workspace, source, reviewer, reviewer_client
):
    admin = make_user("ada", workspace=workspace, role="admin")
    assigned = queue_claim(source, "contradicted", text="Riskier, but assigned.")
    free = queue_claim(source, "abstained", text="Nobody has it yet.")
    review_bulk_assign(workspace=workspace, claims=[assigned], assignee_id=admin.pk, by=admin)

    response = reviewer_client.post("/review/start/?mine=nobody")
    assert response.status_code == 302
    assert response["Location"] == f"/review/item/{free.public_id}/?mine=nobody"
    body = reviewer_client.get(response["Location"]).content.decode()
    assert "by the filter Whose: Nobody&#x27;s" in body
