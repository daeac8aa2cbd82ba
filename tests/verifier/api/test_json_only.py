"""Every API answer is JSON, errors included, whatever the client's Accept header or
``?format=`` asks for (a browser asked and got DRF's HTML page; ``?format=xml`` got a 404
saying nothing was at the address)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/connect/v1/claims?state=bogus", 400),
        ("/connect/v1/claims/claim:nope", 404),
        ("/connect/v1/claims", 200),
        ("/connect/v1/claims?format=api", 200),
        ("/connect/v1/claims?format=xml", 200),
    ],
)
def test_a_browser_gets_json(api, path, status):
    response = api.get(path, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    if status >= 400:
        assert set(response.json()) == {"error"}


def test_no_key_from_a_browser_is_a_json_401():
    response = Client().get("/connect/v1/claims", headers={"Accept": "text/html"})
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"]


def test_the_schema_still_answers_in_the_format_asked(api):
    assert api.get("/connect/v1/schema?format=json")["Content-Type"].startswith(
        "application/vnd.oai.openapi+json"
    )
