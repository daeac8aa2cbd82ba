"""What the API says about the Authorization header and the caller's scope: the scheme
is read in any letter case (RFC 7235 §2.1), another scheme gets a 401 that says what to
send, and a 403 names the scopes as their values ('read'), never a Python repr."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.verifier.api.conftest import key_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer"])
def test_the_bearer_scheme_is_read_in_any_letter_case(workspace, scheme):
    client = Client(headers={"Authorization": f"{scheme} {key_for(workspace)}"})
    assert client.get("/connect/v1/workspace").status_code == 200


def test_another_scheme_is_told_to_send_bearer(workspace):
    client = Client(headers={"Authorization": "Basic dXNlcjpwYXNz"})
    response = client.get("/connect/v1/claims")
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "not_authenticated"
    assert "'Basic' scheme" in error["message"]
    assert "`Authorization: Bearer <key>`" in error["message"]


def test_no_header_keeps_its_own_message(workspace):
    error = Client().get("/connect/v1/claims").json()["error"]
    assert error["message"] == "Authentication credentials were not provided."


def test_a_console_role_is_named_by_its_scope_value(auditor_client, workspace):
    response = auditor_client.post(
        "/connect/v1/sources",
        json.dumps({"ref": "source:x", "text": "Some text."}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert response.json()["error"]["message"] == (
        "This operation needs a role with the write scope, which includes read; "
        "this role has the read scope."
    )


@pytest.mark.parametrize("raw", [b"\xa0", b"\x85", b"\xa0\xa0", b" \xa0 "])
def test_a_header_of_characters_other_than_spaces_is_a_401_not_a_500(workspace, raw):
    """Latin-1 no-break space and NEL are whitespace to ``str.split`` but not to HTTP: a
    header of them left no scheme to read and the lookup failed with a 500."""
    client = Client(HTTP_AUTHORIZATION=raw.decode("latin-1"))
    for method, path in (("get", "/connect/v1/workspace"), ("post", "/worker/verify")):
        response = getattr(client, method)(path)
        assert response.status_code == 401, (raw, path)
        assert response.json()["error"]["code"] in {"authentication_failed", "not_authenticated"}
