"""Keyboard triage: the next item loads with few queries, the pane with one."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from review.models import ReviewNote
from tests.factories import make_source
from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}
# session, user, membership; the skipped claim; lease release (own, then all); domain
# packs (filter form); reason tally + ordered ids; candidate lock, claim lock, lease
# re-check, lease write; the item pane (one query); the session write; 6 savepoint
# statements. Before: 35 (a query per small risk group, nine for the pane).
NEXT_ITEM_MAX_QUERIES = 21


@pytest.fixture
def queue(workspace, reviewer):
    reasons = ["contradicted", "coverage_gap", "stale_source", "low_confidence", "abstained"]
    claims = []
    for i in range(3):
        source = make_source(workspace, ref=f"source:triage_{i}")
        for reason in reasons:
            claim = queue_claim(source, reason, text=f"Claim {i} {reason}.")
            ReviewNote.objects.create(claim=claim, author=reviewer, text="seen")
            claims.append(claim)
    return claims


def test_next_item_by_keypress_has_a_pinned_query_count(reviewer_client, queue):
    first = reviewer_client.post("/review/start/")["Location"]
    public_id = first.split("/item/")[1].split("/")[0]
    reviewer_client.get(first)
    for _ in range(4):
        with CaptureQueriesContext(connection) as captured:
            response = reviewer_client.post(f"/review/item/{public_id}/skip/", **HX)
        assert response.status_code == 200
        assert len(captured) <= NEXT_ITEM_MAX_QUERIES, [q["sql"][:90] for q in captured]
        # (The queue-order query reads verdicts too: "next" skips items I decided.)
        pane = [
            q
            for q in captured
            if "pane_" in q["sql"]
            or ("verifier_verdict" in q["sql"] and "queue_rank" not in q["sql"])
        ]
        assert len(pane) == 1  # verdicts, events, notes, lease, version: one query
        nxt = response["HX-Push-Url"].split("/item/")[1].split("/")[0]
        assert nxt != public_id
        public_id = nxt
        body = response.content.decode()
        assert "Verdict history" in body and "seen" in body


def test_item_pane_renders_the_same_as_before(reviewer_client, queue, reviewer):
    claim = queue[0]
    served = reviewer_client.post("/review/start/")["Location"]  # "next" leases the riskiest
    assert served.startswith(f"/review/item/{claim.public_id}/")
    body = reviewer_client.get(served).content.decode()
    assert "Leased to you until" in body
    assert "heuristic-nli" in body  # judge verdict row
    assert "rita" in body and "seen" in body  # the note and its author
    assert "test setup" in body  # the state event
    assert 'data-version="v' in body
