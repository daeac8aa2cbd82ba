"""A key sent without its scheme (``Authorization: sp_…``, "Bearer " forgotten) is
refused with a 401 that says what to send, and does not echo any of the key: an error
body ends up in client logs, CI output and bug reports."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.verifier.api.conftest import key_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/connect/v1/workspace", "/worker/verify"])
def test_a_bare_key_is_refused_without_being_echoed(workspace, path):
    raw = key_for(workspace)
    response = Client(headers={"Authorization": raw}).post(path)
    assert response.status_code == 401
    error = response.json()["error"]
    assert "`Authorization: Bearer <key>`" in error["message"]
    body = response.content.decode()
    assert raw[3:9] not in body, error["message"]  # not even the secret's first characters


def test_another_scheme_is_still_named(workspace):
    response = Client(headers={"Authorization": "Token abc"}).get("/connect/v1/workspace")
    assert "'Token' scheme" in response.json()["error"]["message"]
