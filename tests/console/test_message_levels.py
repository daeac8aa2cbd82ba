"""The console's messages: an error is announced at once (``role="alert"``), a success, an
info or a warning politely (``role="status"``); walk finding: every level was a status."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db


def _region(page: str, role: str) -> str | None:
    region = rf'<div role="{role}" id="messages-{role}"><ul class="messages">(.*?)</ul></div>'
    found = re.search(region, page, re.S)
    return None if found is None else found.group(1)


def test_an_error_message_is_an_alert_and_a_success_a_status(admin_client_ws, workspace):
    key = api_key_create(workspace=workspace, name="ours", scope="read").api_key
    revoke = "audit:api-key-revoke"
    # a success waits in the session (its redirect not followed) and joins the next page
    done = admin_client_ws.post(reverse(revoke, args=[key.pk]), {"confirmed": "1"})
    assert done.status_code == 302
    page = admin_client_ws.post(reverse(revoke, args=[999999]), {"confirmed": "1"})
    html = page.content.decode()
    alert, status = _region(html, "alert"), _region(html, "status")
    assert alert is not None and status is not None, html
    assert '<li class="message-error">No such key in this workspace.</li>' in alert
    assert "Revoked ours" not in alert
    assert "Revoked ours" in status and "message-success" in status
    assert "No such key" not in status


def test_only_an_error_makes_no_status_region(admin_client_ws):
    html = admin_client_ws.post(
        reverse("audit:api-key-revoke", args=[999999]), {"confirmed": "1"}
    ).content.decode()
    assert "No such key in this workspace." in _region(html, "alert")
    assert _region(html, "status") is None


def test_a_warning_is_polite(admin_client_ws):
    html = admin_client_ws.get("/audit/rules/diff/?a=zzz").content.decode()
    status = _region(html, "status")
    assert status is not None and "message-warning" in status and "zzz" in status
    assert _region(html, "alert") is None
