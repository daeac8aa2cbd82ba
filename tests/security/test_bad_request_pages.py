"""A request Django refuses before any view reads it (``handler400``): more form fields
than ``DATA_UPLOAD_MAX_NUMBER_FIELDS``, a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE``. The
console answers its own 400 page with the cause in words and the way back (it got Django's
bare "Bad Request (400)": a relation bulk decision over 1,000 ticked ids, a crafted review
form); the API keeps its JSON error body."""

from __future__ import annotations

import json

from django.urls import reverse

from tests.verifier.api.conftest import client_for


def _fields(n: int) -> dict[str, str]:
    return {f"claim:{i:012d}": "1" for i in range(n)}


def test_a_console_form_with_too_many_fields_gets_the_console_page(reviewer_client, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    response = reviewer_client.post(
        reverse("review:bulk"), _fields(60), HTTP_REFERER="http://testserver/review/"
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert "<h1>Bad request</h1>" in body
    assert "The form sent more than 50 fields" in body
    assert "Choose fewer rows or items at once" in body
    assert 'href="/review/"' in body  # the way back to the page it came from
    assert "Bad Request (400)" not in body


def test_a_console_body_over_the_size_limit_gets_the_console_page(reviewer_client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    response = reviewer_client.post(reverse("review:bulk"), {"note": "x" * 5_000})
    assert response.status_code == 400
    body = response.content.decode()
    assert "The request is larger than 1,000 bytes" in body
    assert 'href="/"' in body  # no page it came from: the overview


def test_the_api_answers_too_many_fields_in_json(settings, workspace):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 50
    api = client_for(workspace, "write")
    api.raise_request_exception = False
    response = api.post("/connect/v1/claims/verify", _fields(60))
    assert response.status_code == 400
    body = json.loads(response.content)
    assert body["error"]["code"] == "malformed_request"
