"""A reviewer walk at scale: the queue's Lease and Assigned to columns, and the item's
assignee line, named the reader by their own user name ("rita") where a person reads
"you"; other people stay named. Blind review hides none of these (they tell nothing of
what the judge found) and still hides what it hides."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.utils.html import strip_tags

from review.models import ReviewLease
from review.services import review_bulk_assign, review_lease_claim
from tests.factories import make_user
from tests.review.conftest import queue_claim
from verifier.time_words import utc_words

pytestmark = pytest.mark.django_db


def _cells(body: str) -> dict[str, dict[str, str]]:
    """The queue's rows: claim id → {column label: the cell in words}."""
    rows = {}
    for claim_id, row in re.findall(r'<tr data-claim="(claim:[a-z0-9]+)">(.*?)</tr>', body, re.S):
        rows[claim_id] = {
            label: " ".join(unescape(strip_tags(cell)).split())
            for label, cell in re.findall(r'data-label="([^"]+)">(.*?)</td>', row, re.S)
        }
    return rows


@pytest.fixture
def lena(workspace):
    return make_user("lena", workspace=workspace, role="reviewer")


@pytest.fixture
def held_and_assigned(workspace, reviewer, lena, source):
    """rita holds one claim assigned to her; lena holds one assigned to lena."""
    mine = queue_claim(source, "abstained", text="Mine to review.")
    theirs = queue_claim(source, "abstained", text="Lena's to review.")
    review_bulk_assign(workspace=workspace, claims=[mine], assignee_id=reviewer.pk, by=reviewer)
    review_bulk_assign(workspace=workspace, claims=[theirs], assignee_id=lena.pk, by=reviewer)
    assert review_lease_claim(claim=mine, reviewer=reviewer, served_reason="test")
    assert review_lease_claim(claim=theirs, reviewer=lena, served_reason="test")
    return mine, theirs


@pytest.mark.parametrize("blind", [False, True])
def test_the_queue_says_you_for_your_own_lease_and_assignment(
    reviewer_client, reviewer, held_and_assigned, blind
):
    mine, theirs = held_and_assigned
    if blind:
        reviewer_client.post("/review/blind/")
    body = reviewer_client.get("/review/").content.decode()
    rows = _cells(body)
    until = utc_words(ReviewLease.objects.get(claim=mine).expires_at, "time")
    assert rows[mine.public_id]["Lease"] == f"you (until {until})"
    assert rows[mine.public_id]["Assigned to"] == "you"
    # Other people stay named.
    assert rows[theirs.public_id]["Lease"] == "lena"
    assert rows[theirs.public_id]["Assigned to"] == "lena"
    # Blind review keeps hiding what it hides, and only that.
    assert ('id="blind-note"' in body) is blind
    assert ("Judge" in rows[mine.public_id]) is not blind


def test_the_item_says_assigned_to_you_and_names_another_assignee(
    reviewer_client, held_and_assigned
):
    mine, theirs = held_and_assigned
    page = reviewer_client.get(f"/review/item/{mine.public_id}/").content.decode()
    assert "assigned to <strong>you</strong>" in page
    assert "assigned to <strong>rita</strong>" not in page
    assert "Leased to you until" in page
    assert 'id="btn-hand-back"' in page  # Hand back: the item is assigned to you
    other = reviewer_client.get(f"/review/item/{theirs.public_id}/").content.decode()
    assert "assigned to <strong>lena</strong>" in other
    assert "<strong>lena</strong> is reviewing this claim" in other
    assert 'id="btn-hand-back"' not in other
