"""A refused bulk action shows the queue again (422) with the rows still selected and the
error beside its field, not a redirect with a message at the top."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _checked(body: str) -> set[str]:
    return set(re.findall(r'name="claims" value="([^"]+)"[^>]* checked>', body))


def test_exclude_without_a_reason_keeps_the_selection(reviewer_client, make_queue_claim):
    a, _, c = (make_queue_claim("abstained") for _ in range(3))
    response = reviewer_client.post(
        "/review/bulk/?reason=abstained",
        {"action": "exclude", "reason": " ", "claims": [a.public_id, c.public_id]},
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert _checked(body) == {a.public_id, c.public_id}
    assert re.search(
        r'<input id="bulk-reason"[^>]* aria-invalid="true" aria-describedby="bulk-reason-error"',
        body,
    )
    assert '<span class="form-error" id="bulk-reason-error">An exclusion needs a reason.' in body
    assert '<option value="exclude" selected>' in body
    assert 'class="messages"' not in body
    # the page's links lead to the queue, not to the bulk action's address
    assert 'href="/review/?reason=' in body and 'href="?' not in body
    a.refresh_from_db()
    assert a.state == "unverified"


def test_assign_to_nobody_chosen_is_an_error_beside_the_assignee(reviewer_client, make_queue_claim):
    a = make_queue_claim("abstained")
    response = reviewer_client.post(
        "/review/bulk/", {"action": "assign", "assignee": "", "claims": [a.public_id]}
    )
    assert response.status_code == 422
    body = response.content.decode()
    assert _checked(body) == {a.public_id}
    assert re.search(
        r'<select id="bulk-assignee" name="assignee" aria-invalid="true" '
        r'aria-describedby="bulk-assignee-error"',
        body,
    )
    assert "Choose who to assign the claims to." in body
    # someone outside the workspace's deciders: the service's refusal, beside the field too
    response = reviewer_client.post(
        "/review/bulk/", {"action": "assign", "assignee": "999999", "claims": [a.public_id]}
    )
    assert response.status_code == 422
    assert "Assign to a reviewer or admin of this workspace." in response.content.decode()
    assert 'aria-describedby="bulk-assignee-error"' in response.content.decode()


def test_no_rows_selected_is_said_beside_the_button(reviewer_client, make_queue_claim):
    make_queue_claim("abstained")
    response = reviewer_client.post("/review/bulk/", {"action": "rejudge"})
    assert response.status_code == 422
    body = response.content.decode()
    assert '<span class="form-error" id="bulk-errors" role="alert">Select at least one claim.' in (
        body
    )
    assert 'aria-describedby="bulk-errors">Apply to selection…</button>' in body


def test_more_than_the_limit_is_refused_whole_not_cut_short(reviewer_client, make_queue_claim):
    """250 selected rows were cut to the first 200 without a word ("Exclude 200 claims"):
    now the action is refused beside the button, naming the limit, and nothing is done
    (the claims within the first 200 stay as they were, confirmed or not)."""
    from review.forms import MAX_BULK
    from tests.review.conftest import bulk_seen

    real = [make_queue_claim("abstained") for _ in range(2)]
    ids = [c.public_id for c in real] + [f"claim:x{n:05d}" for n in range(248)]
    assert len(set(ids)) == 250 > MAX_BULK == 200
    data = {"action": "exclude", "reason": "noise", "claims": ids}
    for extra in ({}, {**bulk_seen(*real), "confirm": "on"}):
        response = reviewer_client.post("/review/bulk/", {**data, **extra})
        assert response.status_code == 422
        body = response.content.decode()
        assert (
            '<span class="form-error" id="bulk-errors" role="alert">A bulk action takes at '
            "most 200 claims at once; 250 were selected. Nothing was done: select fewer."
        ) in body
        assert "Exclude 200 claims" not in body
        for claim in real:
            claim.refresh_from_db()
            assert (claim.state, claim.exclusion_reason) == ("unverified", "")
    # the same row sent twice is one row: at the limit it is taken
    twice = [real[0].public_id] * 2 + [f"claim:y{n:05d}" for n in range(199)]
    response = reviewer_client.post("/review/bulk/", {**data, "claims": twice})
    assert response.status_code == 200
