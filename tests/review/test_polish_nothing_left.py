"""A reviewer walk at scale: the queue offered "Start reviewing" under a filter with 0
claims left, and pressing it only answered that nothing was left. Now the queue offers
no such button: it says nothing is left in this filter, with the way to the whole
queue."""

from __future__ import annotations

import re

import pytest

from review.services import review_decide
from tests.review.conftest import queue_claim, seen

pytestmark = pytest.mark.django_db

START = 'id="start-reviewing"'


def _page(client, query: str = "") -> str:
    return client.get(f"/review/{query}").content.decode()


def test_a_filter_with_nothing_left_offers_no_start_but_the_whole_queue(
    reviewer_client, reviewer, source
):
    waiting = queue_claim(source, "abstained", text="Still waiting.")
    decided = queue_claim(source, "contradicted", text="Decided by rita.")
    review_decide(
        claim=decided, reviewer=reviewer, decision="contradicted", expected_version=seen(decided)
    )
    # The whole queue has a claim left: Start reviewing is offered.
    assert START in _page(reviewer_client)
    # "State: Contradicted" lists the decided claim, but none is left to review.
    body = _page(reviewer_client, "?state=contradicted")
    assert decided.public_id in body and waiting.public_id not in body
    assert "· 0 left in this filter" in body
    assert START not in body
    said = re.search(r'<p class="review-start nothing-left" id="nothing-left">(.*?)</p>', body)
    assert said is not None
    assert said.group(1).startswith("Nothing left to review in this filter")
    assert '<a href="/review/">Clear the filter</a> to go to the whole queue' in said.group(1)


def test_a_filter_that_holds_no_claim_offers_no_start_but_its_empty_state(reviewer_client, source):
    queue_claim(source, "abstained")
    body = _page(reviewer_client, "?origin=api")
    assert START not in body
    # One message, the empty state, with its way out (no second "nothing left" line).
    assert 'id="nothing-left"' not in body
    assert re.search(
        r'<p class="empty">Nothing to review for this filter\. <a href="/review/">', body
    )


def test_an_empty_queue_offers_no_start(reviewer_client, source):
    queue_claim(source, "supported")
    body = _page(reviewer_client)
    assert START not in body
    assert "Nothing waits for review: every claim in this workspace is decided." in body


def test_an_invalid_filter_still_explains_its_disabled_start(reviewer_client, source):
    queue_claim(source, "abstained")
    body = _page(reviewer_client, "?confidence_min=lots")
    assert re.search(r'<button[^>]*id="start-reviewing"[^>]*disabled', body)
