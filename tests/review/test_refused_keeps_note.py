"""A refused decision keeps the note typed with it: the item the answer shows (422 with
the form's error, 409 with the current item after someone else decided) has the note
back in its field, so the reviewer sends it again without typing it again; the 409 says
who decided once, with the link after it."""

from __future__ import annotations

import re

from tests.factories import make_user
from tests.review.conftest import seen

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}
NOTE = "checked against page 4 & the <appendix>"


def _decide(claim) -> str:
    return f"/review/item/{claim.public_id}/decide/"


def _note_field(body: str) -> str:
    found = re.search(
        r'<input id="decision-note" name="note" maxlength="2000" value="([^"]*)">', body
    )
    assert found, "no note field"
    return found.group(1)


def test_a_decision_refused_by_its_form_keeps_the_note(reviewer_client, make_queue_claim):
    claim = make_queue_claim("contradicted")
    refused = reviewer_client.post(
        _decide(claim),
        {"decision": "supported", "version": seen(claim), "span_start": "3", "note": NOTE},
        **HX,
    )
    assert refused.status_code == 422
    assert (
        _note_field(refused.content.decode()) == "checked against page 4 &amp; the &lt;appendix&gt;"
    )


def test_a_decision_on_a_stale_item_keeps_the_note_and_says_who_once(
    client, reviewer_client, workspace, make_queue_claim
):
    claim = make_queue_claim("contradicted")
    version = seen(claim)
    omar = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(omar)
    decided = client.post(_decide(claim), {"decision": "supported", "version": version}, **HX)
    assert decided.status_code == 200

    stale = reviewer_client.post(
        _decide(claim), {"decision": "contradicted", "version": version, "note": NOTE}, **HX
    )

    assert stale.status_code == 409
    body = stale.content.decode()
    assert _note_field(body) == "checked against page 4 &amp; the &lt;appendix&gt;"
    alert = re.search(r'<p role="alert" class="form-error review-error">(.*?)</p>', body, re.S)
    assert alert
    words = re.sub(r"<[^>]+>", "", alert.group(1))
    assert re.fullmatch(
        r"Already decided by omar at \d\d:\d\d UTC, as Supports\. Open the current item", words
    )
    assert words.lower().count("open the current item") == 1


def test_a_decision_refused_because_another_reviewer_took_the_item_keeps_the_note(
    client, reviewer_client, workspace, make_queue_claim
):
    """The item was read without a lease; another reviewer was served it meanwhile. The
    refusal shows the item read-only, without the decision form: the note typed with
    the decision is shown to copy instead of being lost."""
    from review.selectors.queue import review_queue_filtered
    from review.services import review_lease_next

    claim = make_queue_claim("contradicted")
    version = seen(claim)
    omar = make_user("omar", workspace=workspace, role="reviewer")
    selection = review_queue_filtered(workspace=workspace, reviewer=omar, filters={})
    lease = review_lease_next(
        workspace=workspace, reviewer=omar, queryset=selection.claims, filters={}
    )
    assert lease is not None and lease.claim_id == claim.pk

    for extra in (HX, {}):
        refused = reviewer_client.post(
            _decide(claim), {"decision": "contradicted", "version": version, "note": NOTE}, **extra
        )
        assert refused.status_code == 409
        body = refused.content.decode()
        assert 'id="decision-note"' not in body  # read-only: no decision form
        assert "omar is reviewing this claim" in body
        kept = re.search(r'<textarea id="unsent-note" rows="2" readonly>(.*?)</textarea>', body)
        assert kept, "the note is shown to copy"
        assert kept.group(1) == "checked against page 4 &amp; the &lt;appendix&gt;"
        assert '<label for="unsent-note">Your note was not saved' in body

    # without a note, nothing extra
    refused = reviewer_client.post(
        _decide(claim), {"decision": "contradicted", "version": version}, **HX
    )
    assert 'id="unsent-note"' not in refused.content.decode()
