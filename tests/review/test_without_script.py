"""The item works without JavaScript: Exclude… and Note… open their forms as a page, and
Undo, Restore and Note answer with a redirect (Post/Redirect/Get) whose page shows the
flash, with the same Undo and Restore offers as the in-place answer."""

from __future__ import annotations

import re

import pytest

from review.models import ReviewNote
from tests.review.conftest import seen

pytestmark = pytest.mark.django_db


def _url(claim, action=""):
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def _flash(page: str) -> str:
    match = re.search(r'<div id="review-flash" class="flash"><span>(.*?)</span>', page)
    return match.group(1) if match else ""


def test_exclude_and_note_are_links_to_their_forms(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    body = reviewer_client.get(_url(claim) + "?reason=abstained").content.decode()
    exclude = re.search(r'<a href="([^"]+)" id="btn-exclude"[^>]*data-opens="exclude-dialog"', body)
    note = re.search(r'<a href="([^"]+)" id="btn-note"[^>]*data-opens="note-dialog"', body)
    assert exclude and note
    assert exclude.group(1) == _url(claim) + "?reason=abstained&amp;form=exclude"
    assert (
        '<dialog id="exclude-dialog" class="review-dialog" aria-labelledby="exclude-title" >'
        in body
    )
    opened = reviewer_client.get(exclude.group(1).replace("&amp;", "&")).content.decode()
    assert re.search(r'<dialog id="exclude-dialog"[^>]* open data-open="true">', opened)
    assert re.search(r'<input id="exclude-reason"[^>]* autofocus>', opened)
    assert not re.search(r'<dialog id="note-dialog"[^>]* open', opened)
    opened = reviewer_client.get(_url(claim) + "?form=note").content.decode()
    assert re.search(r'<dialog id="note-dialog"[^>]* open data-open="true">', opened)
    # Cancel is a link back to the item (review.js closes the dialog instead).
    assert f'<a href="{_url(claim)}" class="button" data-closes="note-dialog">Cancel</a>' in opened
    # an unknown form name opens nothing
    other = reviewer_client.get(_url(claim) + "?form=decide").content.decode()
    assert " open data-open" not in other


def test_note_undo_and_restore_redirect_after_the_post(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    noted = reviewer_client.post(_url(claim, "note") + "?reason=abstained", {"text": "a map"})
    assert noted.status_code == 302
    assert noted["Location"] == _url(claim) + "?reason=abstained"
    assert ReviewNote.objects.get(claim=claim).text == "a map"
    page = reviewer_client.get(noted["Location"]).content.decode()
    assert _flash(page) == "Note added."
    assert _flash(reviewer_client.get(noted["Location"]).content.decode()) == ""  # once

    excluded = reviewer_client.post(
        _url(claim, "exclude"), {"reason": "off topic", "version": seen(claim)}
    )
    assert excluded.status_code == 302
    restored = reviewer_client.post(_url(claim, "restore"), {"version": seen(claim)})
    assert (restored.status_code, restored["Location"]) == (302, _url(claim))
    assert _flash(reviewer_client.get(_url(claim)).content.decode()).startswith("Restored: now")

    decided = reviewer_client.post(
        _url(claim, "decide"), {"decision": "contradicted", "version": seen(claim)}
    )
    assert decided.status_code == 302
    undone = reviewer_client.post(_url(claim, "undo"))
    assert (undone.status_code, undone["Location"]) == (302, _url(claim))
    assert _flash(reviewer_client.get(_url(claim)).content.decode()).startswith("Undone:")


def test_a_refused_note_is_shown_again_with_its_error(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    refused = reviewer_client.post(_url(claim, "note"), {"text": ""})
    assert refused.status_code == 422
    body = refused.content.decode()
    assert re.search(r'<dialog id="note-dialog"[^>]* open data-open="true">', body)
    assert 'aria-invalid="true" aria-describedby="note-text-error"' in body
    assert 'id="note-text-error"' in body


def test_the_flash_after_a_redirect_offers_undo_and_restore(reviewer_client, make_queue_claim):
    first = make_queue_claim("contradicted")
    second = make_queue_claim("contradicted")
    third = make_queue_claim("abstained")
    decided = reviewer_client.post(
        _url(first, "decide"), {"decision": "supported", "version": seen(first)}
    )
    assert decided["Location"] == _url(second)
    page = reviewer_client.get(decided["Location"]).content.decode()
    assert "marked supported" in _flash(page)
    assert f'action="{_url(first, "undo")}"' in page and 'id="btn-undo-previous"' in page

    excluded = reviewer_client.post(
        _url(second, "exclude"), {"reason": "noise", "version": seen(second)}
    )
    assert excluded["Location"] == _url(third)
    page = reviewer_client.get(excluded["Location"]).content.decode()
    assert _flash(page) == f"{second.public_id} excluded."
    offer = re.search(
        rf'<form method="post" action="{_url(second, "restore")}".*?name="version" '
        r'value="([^"]+)"><button type="submit" id="btn-restore-previous"',
        page,
        re.S,
    )
    assert offer, "the exclusion's flash offers Restore"
    second.refresh_from_db()
    assert offer.group(1) == seen(second)
    restored = reviewer_client.post(_url(second, "restore"), {"version": offer.group(1)})
    assert restored.status_code == 302
    second.refresh_from_db()
    assert second.state != "excluded"
