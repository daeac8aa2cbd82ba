"""The queue's filter bar and Judge column say only what is so: blind review offers and
applies no judge-model filter (it reads the verdict blind review hides), an invalid
filter offers no "Start reviewing" that would only answer its error, and a claim with
no bound span names no judge (none was asked)."""

from __future__ import annotations

import html
import re

import pytest

from review.models import ReviewLease
from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _rows(body: str) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', body)


def _get(client, query: str) -> str:
    response = client.get(f"/review/?{query}")
    assert response.status_code == 200
    return response.content.decode()


def _judge_cell(body: str, claim) -> str:
    row = re.search(rf'<tr data-claim="{claim.public_id}">(.*?)</tr>', body, re.S).group(1)
    return _text(re.search(r'data-label="Judge">(.*?)</td>', row, re.S).group(1))


def _blind(client) -> None:
    assert client.post("/review/blind/", {"next": "/review/"}).status_code == 302


# --- blind review: no judge-model filter ----------------------------------------------


def test_blind_review_neither_offers_nor_applies_the_judge_model_filter(reviewer_client, source):
    by_a = queue_claim(source, "contradicted", judge_model="judge-a", text="Judged by a.")
    by_b = queue_claim(source, "abstained", judge_model="judge-b", text="Judged by b.")
    assert _rows(_get(reviewer_client, "judge_model=judge-b")) == [by_b.public_id]

    _blind(reviewer_client)
    body = _get(reviewer_client, "judge_model=judge-b&source=source:marrow_delta")
    bar = re.search(r'<form id="queue-filter".*?</form>', body, re.S).group(0)
    assert 'name="judge_model"' not in bar and "Judge model" not in bar
    assert 'name="source"' in bar
    # the queue by the other filters, and it says the judge model is left out
    assert set(_rows(body)) == {by_a.public_id, by_b.public_id}
    notice = _text(re.search(r'id="blind-ignored"[^>]*>(.*?)</p>', body, re.S).group(1))
    assert "judge model" in notice
    links = [
        html.unescape(link)
        for link in re.findall(r'(?:href|action)="(/review/(?:item|start|bulk)/[^"]*)"', body)
    ]
    assert links and all("judge_model" not in link for link in links), links
    assert all("source=source" in link for link in links), links
    # "Start reviewing" with it serves by the queue's own order, not by the judge model
    served = reviewer_client.post("/review/start/?judge_model=judge-b", follow=True)
    assert f'data-claim="{by_a.public_id}"' in served.content.decode()
    # and an item's links drop it too
    item = reviewer_client.get(f"/review/item/{by_b.public_id}/?judge_model=judge-b")
    actions = re.findall(r'(?:action|href)="(/review/item/[^"]+)"', item.content.decode())
    assert actions and not any("judge_model" in a for a in actions)


def test_blind_review_ignores_a_malformed_judge_derived_filter(reviewer_client, source):
    """A judge-derived value blind review leaves out is not read at all: no form error
    (which would tell what the field is) and the queue is listed."""
    claim = queue_claim(source, "contradicted")
    _blind(reviewer_client)
    body = _get(reviewer_client, "confidence_min=NaN&judge_model=x")
    assert 'id="queue-filter-error"' not in body
    assert _rows(body) == [claim.public_id]
    assert 'id="blind-ignored"' in body


# --- an invalid filter: no "Start reviewing" to press ---------------------------------


@pytest.mark.parametrize("query", ["ingest_job=1.5", "confidence_min=NaN", "origin=bogus"])
def test_an_invalid_filter_offers_start_reviewing_disabled_with_the_reason(
    reviewer_client, source, query
):
    queue_claim(source, "contradicted")
    body = _get(reviewer_client, query)
    assert 'id="queue-filter-error"' in body
    assert 'action="/review/start/' not in body  # nothing to post that answers a 422
    button = re.search(r'<button[^>]*id="start-reviewing"[^>]*>', body).group(0)
    assert " disabled" in button and 'type="button"' in button
    assert 'aria-describedby="start-reviewing-why"' in button
    why = _text(re.search(r'id="start-reviewing-why">(.*?)</span>', body, re.S).group(1))
    assert why.startswith("Fix the filter above")

    # a valid filter with a claim left offers it, enabled (one with none left offers
    # no button: tests/review/test_polish_nothing_left.py)
    valid = _get(reviewer_client, "origin=extracted")
    button = re.search(r'<button[^>]*id="start-reviewing"[^>]*>', valid).group(0)
    assert "disabled" not in button and 'type="submit"' in button
    assert 'action="/review/start/?origin=extracted"' in valid
    assert 'id="start-reviewing-why"' not in valid
    assert not ReviewLease.objects.exists()


# --- a claim with no bound span: the judge was not asked ------------------------------


def test_a_claim_with_nothing_bound_names_no_judge(reviewer_client, source):
    not_asked = queue_claim(source, "not_asked", judge_model="heuristic-nli")
    never = queue_claim(source, "no_evidence")  # no verdict at all
    judged = queue_claim(source, "contradicted", judge_model="heuristic-nli")
    body = _get(reviewer_client, "")
    assert _judge_cell(body, not_asked) == "not asked (nothing is bound)"
    assert _judge_cell(body, never) == "—"
    assert _judge_cell(body, judged) == "heuristic-nli"
    # the judge-model filter reads the same: it was not that model's answer
    assert _rows(_get(reviewer_client, "judge_model=heuristic-nli")) == [judged.public_id]

    # Blind review has no Judge column: "not asked" and "—" would tell the reason.
    _blind(reviewer_client)
    body = _get(reviewer_client, "")
    table = re.search(r'<table class="review-queue">.*?</table>', body, re.S).group(0)
    assert 'data-label="Judge"' not in table and ">Judge</th>" not in table
    assert "not asked" not in table and "heuristic-nli" not in table
