"""An undo offers the undone decision's note again in the note field: taking back a
decision made with the wrong key does not mean typing its note again."""

from __future__ import annotations

import html
import re

import pytest

from tests.review.conftest import queue_claim, seen

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}
NOTE = "The span gives 14 miles, not 40 — checked the 1932 log."


def _note_field(body: str) -> str:
    field = re.search(r'<input id="decision-note"[^>]*>', body).group(0)
    value = re.search(r'value="([^"]*)"', field)
    return html.unescape(value.group(1)) if value else ""


def _decide(client, claim, note: str) -> None:
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "supported", "note": note, "version": seen(claim)},
    )
    assert response.status_code == 302


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "redirect"])
def test_undo_puts_the_decisions_note_back(reviewer_client, source, htmx):
    claim = queue_claim(source, "contradicted")
    _decide(reviewer_client, claim, NOTE)
    url = f"/review/item/{claim.public_id}/undo/"
    response = reviewer_client.post(url, **HX) if htmx else reviewer_client.post(url, follow=True)
    body = response.content.decode()
    assert "Undone: your decision" in body and "Its note is back in the note field." in body
    assert _note_field(body) == NOTE
    # Shown once: the item opened again later has an empty note field.
    later = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert _note_field(later) == ""


def test_undo_of_a_decision_without_a_note_leaves_the_field_empty(reviewer_client, source):
    claim = queue_claim(source, "contradicted")
    _decide(reviewer_client, claim, "")
    body = reviewer_client.post(f"/review/item/{claim.public_id}/undo/", **HX).content.decode()
    assert "Undone: your decision" in body and "note field" not in body
    assert _note_field(body) == ""
