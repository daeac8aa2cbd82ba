"""Blind review hides the judge's result everywhere a reviewer reads it before deciding:
the item's lease line and the queue's state, why and confidence columns, and the flash
after sending back or restoring."""

from __future__ import annotations

import html
import re

import pytest

from review.services import review_exclude
from tests.review.conftest import seen

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _blind(client) -> None:
    assert client.post("/review/blind/", {"next": "/review/"}).status_code == 302


def test_blind_item_lease_line_does_not_say_why_it_was_served(reviewer_client, make_queue_claim):
    claim = make_queue_claim("contradicted", text="The delta gains land.")
    _blind(reviewer_client)
    start = reviewer_client.post("/review/start/", follow=True)
    body = start.content.decode()
    assert f'data-claim="{claim.public_id}"' in body
    lease = _text(re.search(r'<p class="muted">\s*(Leased to you.*?)</p>', body, re.S).group(1))
    assert lease.endswith("served: next in the queue (why is hidden in blind review)")
    claim_pane = _text(body.split('<h2 id="help-title"')[0])
    assert "next by risk" not in claim_pane and "contradicted" not in claim_pane.lower().replace(
        "contradicted c", ""
    )


def test_blind_queue_hides_state_why_and_confidence(reviewer_client, make_queue_claim):
    make_queue_claim("contradicted")
    seeing = reviewer_client.get("/review/").content.decode()
    assert "Why it is queued" in seeing and "90\u00a0% sure" in seeing
    _blind(reviewer_client)
    body = reviewer_client.get("/review/").content.decode()
    table = re.search(r'<table class="review-queue">.*?</table>', body, re.S).group(0)
    for hidden in ("State", "Why it is queued", "Judge's confidence"):
        assert f">{hidden}</th>" not in table
    assert 'class="cell-state"' not in table and 'class="reason why"' not in table
    assert 'class="confidence' not in table
    assert "contradicts" not in _text(table) and "90\u00a0%" not in table
    assert 'id="blind-note"' in body


def test_blind_flash_after_send_back_and_restore_names_no_state(
    reviewer_client, reviewer, make_queue_claim
):
    claim = make_queue_claim("contradicted")
    make_queue_claim("abstained")  # the next item the send-back serves
    _blind(reviewer_client)
    sent = reviewer_client.post(
        f"/review/item/{claim.public_id}/rejudge/", {"version": seen(claim)}, **HX
    )
    assert f"{claim.public_id} sent back to the judge." in _text(sent.content.decode())
    assert "now " not in _text(sent.content.decode()).split("sent back to the judge")[1][:5]
    review_exclude(claim=claim, reviewer=reviewer, reason="noise", expected_version=seen(claim))
    restored = reviewer_client.post(
        f"/review/item/{claim.public_id}/restore/", {"version": seen(claim)}, **HX
    )
    flash = re.search(r'class="flash"><span>(.*?)</span>', restored.content.decode()).group(1)
    assert flash == f"Restored {claim.public_id}."


def test_blind_page_links_and_bulk_form_carry_no_judge_derived_params(
    reviewer_client, make_queue_claim
):
    """The pagination links and the bulk form's action echo the query: in blind review
    they leave out the state, reason and confidence filters it does not apply (a link
    with ``reason=contradicted`` would tell what the page hides)."""
    from review.selectors.queue import QUEUE_PAGE_SIZE

    for i in range(QUEUE_PAGE_SIZE + 1):
        make_queue_claim("abstained", text=f"An undecided claim {i}.")
    _blind(reviewer_client)
    query = "reason=abstained&confidence_min=10&confidence_max=90&state=unverified&origin=extracted"
    body = reviewer_client.get(f"/review/?{query}").content.decode()
    assert 'id="blind-ignored"' in body
    next_link = re.search(r'<a href="([^"]*)"[^>]*rel="next"', body)
    assert next_link, "a second page"
    links = [html.unescape(next_link.group(1))]
    links.append(html.unescape(re.search(r'id="bulk-form"[^>]*action="([^"]*)"', body).group(1)))
    for link in links:
        assert "origin=extracted" in link, link
        for key in ("reason=", "confidence_min=", "confidence_max=", "state="):
            assert key not in link, (key, link)

    # the second page by that link: the rest of the queue, its own links clean too
    second = reviewer_client.get(f"/review/{links[0]}").content.decode()
    assert len(re.findall(r'<tr data-claim="', second)) == 1
    previous = html.unescape(re.search(r'<a href="([^"]*)"[^>]*rel="prev"', second).group(1))
    assert "reason=" not in previous and "state=" not in previous
