"""A 403 for a scope says in words which scope the operation needs and which the caller
holds; the codes clients branch on are in ``details``."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for

pytestmark = pytest.mark.django_db


def test_a_read_key_on_an_admin_operation_is_told_in_words(workspace):
    response = client_for(workspace, "read").get("/connect/v1/webhooks")
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission_denied"
    assert error["message"] == (
        "This operation needs an API key with the admin scope, which includes read and "
        "write; this API key has the read scope."
    )
    assert error["details"] == {"needed_scope": "admin", "held_scope": "read"}
    assert "'" not in error["message"]


def test_a_console_role_is_named_by_its_scope_in_words(auditor_client, workspace):
    response = auditor_client.post(
        "/connect/v1/sources",
        json.dumps({"ref": "source:x", "text": "Some text."}),
        content_type="application/json",
    )
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["message"] == (
        "This operation needs a role with the write scope, which includes read; "
        "this role has the read scope."
    )
    assert error["details"] == {"needed_scope": "write", "held_scope": "read"}
