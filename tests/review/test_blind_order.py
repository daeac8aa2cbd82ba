"""Blind review lists and serves the queue oldest first: the risk order ranks a claim by
its reason (what the judge answered), so a claim's place in it would tell a blind
reviewer the answer the page hides (the contradictions first). The sealed cursor pages
through the oldest-first order without skipping or repeating a claim."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.http import QueryDict

from review.models import ReviewLease
from review.selectors.cursor import BlindCursor, QueueCursor
from review.selectors.queue import review_queue_page
from tests.review.conftest import queue_claim
from verifier.models import Claim

pytestmark = pytest.mark.django_db

# Oldest first, in no risk order: the riskiest reasons come late.
REASONS = (
    "abstained",
    "no_evidence",
    "low_confidence",
    "contradicted",
    "abstained",
    "coverage_gap",
    "judge_reviewers_disagree",
    "contradicted",
)


def _rows(body: str) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', body)


def _blind(client) -> None:
    assert client.post("/review/blind/", {"next": "/review/"}).status_code == 302


def _claims(source) -> list[Claim]:
    """The claims of :data:`REASONS`, oldest first; the third and fourth made at the
    same instant as the second (the id breaks the tie)."""
    claims = [queue_claim(source, r, text=f"Claim {i}, {r}.") for i, r in enumerate(REASONS)]
    base = claims[0].created_at
    for i, claim in enumerate(claims):
        at = base + timedelta(seconds=min(i, 1) if i < 4 else i)
        Claim.objects.filter(pk=claim.pk).update(created_at=at)
    return claims


def test_blind_queue_is_listed_oldest_first_not_by_risk(reviewer_client, source):
    claims = _claims(source)
    seeing = _rows(reviewer_client.get("/review/").content.decode())
    # The risk order puts the contradictions first: their place tells the answer.
    assert seeing[:2] == [claims[3].public_id, claims[7].public_id]

    _blind(reviewer_client)
    body = reviewer_client.get("/review/").content.decode()
    assert _rows(body) == [c.public_id for c in claims]
    assert "Claims awaiting review, oldest first" in body
    assert "listed oldest first" in body


def test_the_sealed_cursor_walks_every_blind_page_once(source, workspace, reviewer):
    claims = _claims(source)
    expected = [c.pk for c in claims]

    def page(query: str):
        return review_queue_page(
            workspace=workspace,
            reviewer=reviewer,
            params=QueryDict(query),
            page_size=3,
            blind=True,
        ).page

    forward: list[list[int]] = []
    queries = [""]
    current = page("")
    while True:
        forward.append([row.pk for row in current.object_list])
        if current.next_query is None:
            break
        after = QueryDict(current.next_query)["after"]
        # Sealed: neither the risk order's key nor the plain oldest-first key.
        assert QueueCursor.parse(after) is None and BlindCursor.parse(after) is None
        queries.append(current.next_query)
        current = page(current.next_query)
    assert [pk for rows in forward for pk in rows] == expected  # each once, oldest first
    assert [len(rows) for rows in forward] == [3, 3, 2]

    # And back again from the last page, page by page, to the first.
    backward: list[list[int]] = []
    while True:
        backward.append([row.pk for row in current.object_list])
        if current.previous_query is None:
            break
        current = page(current.previous_query)
    assert backward == forward[::-1]


def test_blind_review_serves_the_oldest_first(reviewer_client, source):
    claims = _claims(source)
    _blind(reviewer_client)
    served = reviewer_client.post("/review/start/", follow=True).content.decode()
    assert f'data-claim="{claims[0].public_id}"' in served
    lease = ReviewLease.objects.get()
    assert "risk" not in lease.served_reason and "abstained" not in lease.served_reason
    # "Next" serves the next oldest, not the riskiest.
    following = reviewer_client.post(f"/review/item/{claims[0].public_id}/skip/", follow=True)
    assert f'data-claim="{claims[1].public_id}"' in following.content.decode()

    # Seeing the judge, the riskiest is served first.
    _blind(reviewer_client)
    ReviewLease.objects.all().delete()
    served = reviewer_client.post("/review/start/", follow=True).content.decode()
    assert 'data-claim="claim:' in served
    first = re.search(r'data-claim="(claim:[a-z0-9]+)"', served).group(1)
    assert Claim.objects.get(public_id=first).state_reason == "contradicted"
