"""A quote that joins passages with an ellipsis does not bind: every door says why, in
the same words (claims/verify's ``reason_text``, the claim's envelope and the claim list,
the console's claim page, the review queue and the review item), and the claim keeps its
state and reason."""

from __future__ import annotations

import html
import json

import pytest
from django.urls import reverse

from verifier.models import Claim, EvidenceBinding
from verifier.states import reason_description

pytestmark = pytest.mark.django_db

URL = "/connect/v1/claims/verify"

# Two sentences of DELTA_TEXT, far apart, joined by an ellipsis.
ELIDED = (
    "The Marrow River delta gains land in wet years. … Dredging the main channel starves "
    "the outer marsh of mud."
)
ELLIPSIS_WORDS = (
    "The quote joins passages with an ellipsis (“…”); a span must be one continuous "
    "passage of the source: quote one passage, or send each passage as its own claim."
)


def verify(api, quote: str, source_ref: str) -> dict:
    claim = {"text": "The delta gains land and dredging starves it.", "source": source_ref}
    response = api.post(
        URL,
        data=json.dumps({"claims": [{**claim, "quote": quote}]}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    (row,) = response.json()["results"]
    return row


def test_an_elided_quote_is_unbound_and_its_reason_text_says_the_ellipsis_is_why(api, delta):
    row = verify(api, ELIDED, delta.ref)
    # no new state nor reason: unverified, no_evidence, nothing bound
    assert (row["state"], row["reason"], row["span"]) == ("unverified", "no_evidence", None)
    assert row["reason_text"] == f"{reason_description('no_evidence')} {ELLIPSIS_WORDS}"
    stored = Claim.objects.get(public_id=row["claim_id"])
    assert not EvidenceBinding.objects.filter(claim=stored, is_active=True).exists()
    # the claim's envelope and the claim list say the same
    envelope = api.get(f"/connect/v1/claims/{row['claim_id']}").json()
    assert (envelope["reason"], envelope["reason_text"]) == (row["reason"], row["reason_text"])
    (listed,) = api.get("/connect/v1/claims").json()["results"]
    assert listed["reason_text"] == row["reason_text"]


@pytest.mark.parametrize("marker", ["[...]", "[…]", ". . .", "..."])
def test_every_way_of_writing_the_ellipsis_is_named(api, delta, marker):
    row = verify(api, ELIDED.replace("…", marker), delta.ref)
    assert (row["state"], row["reason"]) == ("unverified", "no_evidence")
    assert "joins passages with an ellipsis (“" in row["reason_text"]
    assert f"{marker}”)" in row["reason_text"]  # as written (". . ." takes the full stop)


def test_a_quote_without_an_ellipsis_keeps_todays_reason_text(api, delta):
    row = verify(api, "Mud sinks in the delta every spring.", delta.ref)
    assert (row["state"], row["reason"]) == ("unverified", "no_evidence")
    assert row["reason_text"] == reason_description("no_evidence")


def test_the_console_claim_page_and_review_queue_say_the_ellipsis_is_why(
    api, delta, auditor_client, reviewer_client
):
    row = verify(api, ELIDED, delta.ref)
    page = auditor_client.get(reverse("audit:claim-detail", args=[row["claim_id"]]))
    assert page.status_code == 200
    text = html.unescape(page.content.decode())
    assert f'id="state-reason-text">{row["reason_text"]}</p>' in text
    assert ELLIPSIS_WORDS in text

    queue = reviewer_client.get(reverse("review:queue"))
    assert queue.status_code == 200
    assert ELLIPSIS_WORDS in html.unescape(queue.content.decode())
    item = reviewer_client.get(reverse("review:item", args=[row["claim_id"]]))
    assert item.status_code == 200
    assert ELLIPSIS_WORDS in html.unescape(item.content.decode())


def test_the_claim_page_of_a_quote_without_an_ellipsis_shows_the_reason_alone(
    api, delta, auditor_client
):
    row = verify(api, "Mud sinks in the delta every spring.", delta.ref)
    page = auditor_client.get(reverse("audit:claim-detail", args=[row["claim_id"]]))
    text = html.unescape(page.content.decode())
    assert f'id="state-reason-text">{reason_description("no_evidence")}</p>' in text
    assert "ellipsis" not in text
