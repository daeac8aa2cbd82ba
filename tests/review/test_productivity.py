"""Reviewer productivity (issue 40.5): one's own progress, undo of one's own last
decision, assignment in bulk shown in the row, the workspace's guidelines beside the item."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from review.models import ReviewAssignment, ReviewGuidelines
from tests.factories import make_user
from tests.review.conftest import queue_claim, seen
from verifier.models import StateEvent, Verdict

pytestmark = pytest.mark.django_db


def _decide(client, claim, decision="supported"):
    return client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": decision, "version": seen(claim)},
    )


def test_queue_shows_my_progress_today_last_hour_and_what_is_left(reviewer_client, source):
    claims = [queue_claim(source, "contradicted", text=f"Claim {i}.") for i in range(4)]
    for claim in claims[:2]:
        assert _decide(reviewer_client, claim).status_code == 302
    body = reviewer_client.get("/review/").content.decode()
    progress = re.search(r'id="my-progress"[^>]*>(.*?)</p>', body, re.S).group(1)
    text = " ".join(re.sub(r"<[^>]+>", " ", progress).split())
    assert text == "You: 2 decided today (UTC) · 2 in the last hour · 2 left in this filter"


def test_undo_appends_a_withdrawal_and_the_judges_verdict_applies_again(
    reviewer_client, reviewer, source
):
    claim = queue_claim(source, "contradicted")  # the judge: contradicted, 90 %
    _decide(reviewer_client, claim, "supported")
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "human_supported")
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert 'id="btn-undo"' in item

    # Without htmx: Post/Redirect/Get, the item page shows the flash.
    response = reviewer_client.post(f"/review/item/{claim.public_id}/undo/", follow=True)
    assert response.redirect_chain == [(f"/review/item/{claim.public_id}/", 302)]
    assert "Undone: your decision" in response.content.decode()
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("contradicted", "contradicted")
    labels = list(claim.verdicts.order_by("id").values_list("label", "reviewer_id"))
    assert labels == [
        ("contradicted", None),
        ("entailed", reviewer.pk),
        ("withdrawn", reviewer.pk),
    ]  # nothing deleted: the history keeps the decision and its withdrawal
    last = StateEvent.objects.filter(claim=claim).order_by("-id").first()
    assert (last.from_state, last.to_state, last.actor) == ("supported", "contradicted", reviewer)
    assert last.cause.startswith("review: undo by")
    # Back in the queue, and nothing left of mine to undo.
    assert claim.public_id in reviewer_client.get("/review/").content.decode()
    again = reviewer_client.post(f"/review/item/{claim.public_id}/undo/")
    assert again.status_code == 422
    assert Verdict.objects.filter(claim=claim).count() == 3


def test_undo_restores_the_decision_it_replaced_and_never_someone_elses(
    reviewer_client, reviewer, workspace, source
):
    other = make_user("olga", workspace=workspace, role="reviewer")
    olga = Client()
    olga.force_login(other)
    claim = queue_claim(source, "abstained")
    _decide(olga, claim, "supported")
    _decide(reviewer_client, claim, "contradicted")
    claim.refresh_from_db()
    assert claim.state_reason == "human_contradicted"
    # Olga's decision no longer stands: she has nothing to undo.
    assert olga.post(f"/review/item/{claim.public_id}/undo/").status_code == 422
    reviewer_client.post(f"/review/item/{claim.public_id}/undo/")
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "human_supported")  # Olga's


def test_undo_is_refused_after_the_window(reviewer_client, source, settings):
    settings.SPANPROOF_REVIEW_UNDO_SECONDS = 0
    claim = queue_claim(source, "contradicted")
    _decide(reviewer_client, claim, "supported")
    response = reviewer_client.post(f"/review/item/{claim.public_id}/undo/")
    assert response.status_code == 422
    assert "Too late to undo" in response.content.decode()
    claim.refresh_from_db()
    assert claim.state == "supported"


def test_the_next_item_after_a_decision_offers_to_undo_it(reviewer_client, source):
    first = queue_claim(source, "contradicted", text="First claim.")
    queue_claim(source, "contradicted", text="Second claim.")
    response = reviewer_client.post(
        f"/review/item/{first.public_id}/decide/",
        {"decision": "supported", "version": seen(first)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="review-item",
    )
    body = response.content.decode()
    assert f"/review/item/{first.public_id}/undo/" in body and 'id="btn-undo-previous"' in body


def test_bulk_assignment_shows_in_the_row_and_in_assigned_to_me(
    reviewer_client, reviewer, workspace, source
):
    other = make_user("olga", workspace=workspace, role="reviewer")
    auditor = make_user("audrey", workspace=workspace, role="auditor")
    claims = [queue_claim(source, "abstained", text=f"Claim {i}.") for i in range(3)]
    response = reviewer_client.post(
        "/review/bulk/",
        {
            "action": "assign",
            "assignee": str(other.pk),
            "claims": [c.public_id for c in claims[:2]],
        },
    )
    assert response.status_code == 302
    assert set(ReviewAssignment.objects.values_list("claim_id", "assignee_id")) == {
        (claims[0].pk, other.pk),
        (claims[1].pk, other.pk),
    }
    body = reviewer_client.get("/review/").content.decode()
    rows = dict(re.findall(r'<tr data-claim="(claim:[a-z0-9]+)">(.*?)</tr>', body, re.S))
    assigned = r'<td class="cell-meta assignee[^"]*" data-label="Assigned to">'
    assert re.search(f"{assigned}olga</td>", rows[claims[0].public_id])
    assert re.search(f"{assigned}—</td>", rows[claims[2].public_id])

    olga = Client()
    olga.force_login(other)
    mine = olga.get("/review/", {"mine": "true"}).content.decode()
    assert set(re.findall(r'<tr data-claim="(claim:[a-z0-9]+)">', mine)) == {
        claims[0].public_id,
        claims[1].public_id,
    }
    # Only a reviewer or admin of the workspace can be assigned; nothing changes otherwise.
    refused = reviewer_client.post(
        "/review/bulk/",
        {"action": "assign", "assignee": str(auditor.pk), "claims": [claims[2].public_id]},
        follow=True,
    )
    assert "Assign to a reviewer or admin" in refused.content.decode()
    assert ReviewAssignment.objects.count() == 2
    reviewer_client.post(
        "/review/bulk/",
        {"action": "assign", "assignee": "none", "claims": [claims[0].public_id]},
    )
    assert ReviewAssignment.objects.count() == 1


def test_guidelines_are_markdown_sanitized_and_shown_beside_the_item(
    admin_client_ws, reviewer_client, source
):
    claim = queue_claim(source, "abstained")
    text = (
        "# How we decide\n\n* **Supported** needs the exact span.\n"
        '<script>alert(1)</script> <img src=x onerror="alert(2)">\n\n'
        "[bad](javascript:alert(3)) [good](https://example.org)"
    )
    response = admin_client_ws.post("/review/guidelines/edit/", {"text": text})
    assert response.status_code == 302
    saved = ReviewGuidelines.objects.get()
    assert "<h2>How we decide</h2>" in saved.html and "<strong>Supported</strong>" in saved.html
    # a javascript: link is not made a link (its words stay as text, harmless)
    for bad in ("<script", "onerror", 'href="javascript:', "alert(1)", "<img"):
        assert bad not in saved.html
    assert 'href="https://example.org"' in saved.html
    item = reviewer_client.get(f"/review/item/{claim.public_id}/")
    body = item.content.decode()
    panel = body.split('id="guidelines-panel"')[1].split("</details>")[0]
    assert (
        "<h2>How we decide</h2>" in panel
        and "<script" not in body.split("<body")[1].split('<script src="/static/js/review.js"')[0]
    )
    assert "script-src 'self'" in item["Content-Security-Policy"]
    # Reviewers read them; only admins write them.
    assert reviewer_client.get("/review/guidelines/").status_code == 200
    denied = reviewer_client.post("/review/guidelines/edit/", {"text": "mine now"})
    assert denied.status_code == 403
    assert ReviewGuidelines.objects.get().text == text.strip()


def test_undo_moves_the_reviewers_lease_to_the_item_it_shows_again(reviewer_client, source):
    """After deciding, the next item was leased to the reviewer; undo shows the first
    item again to decide — it is theirs now (before: no lease on it, and the one they had
    left stayed held for 15 minutes, blocking others)."""
    from review.models import ReviewLease

    first = queue_claim(source, "contradicted", text="First claim.")
    second = queue_claim(source, "contradicted", text="Second claim.")
    reviewer_client.post(
        f"/review/item/{first.public_id}/decide/",
        {"decision": "supported", "version": seen(first)},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="review-item",
    )
    assert set(ReviewLease.objects.values_list("claim_id", flat=True)) == {second.pk}

    undone = reviewer_client.post(
        f"/review/item/{first.public_id}/undo/",
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="review-item",
    )

    assert undone.status_code == 200
    assert set(ReviewLease.objects.values_list("claim_id", flat=True)) == {first.pk}
