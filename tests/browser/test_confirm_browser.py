"""What cannot be undone asks first: turning off a webhook dismissed leaves it on,
accepted turns it off."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import make_user, make_workspace
from verifier.models import Webhook

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_turning_off_a_webhook_asks_first(browser_login, live_server, settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    workspace = make_workspace("confirm")
    page = browser_login(make_user("ada", workspace=workspace, role="admin"))
    hook = Webhook.objects.create(
        workspace=workspace, url="http://127.0.0.1:9/h", secret="s" * 16, events=["job.completed"]
    )
    page.goto(f"{live_server.url}/audit/webhooks/")
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Turn off the webhook to http://127.0.0.1:9/h").click()
    expect(page.locator("#webhooks")).to_contain_text("on")
    assert asked and "cannot be turned on again" in asked[0]
    hook.refresh_from_db()
    assert hook.is_active
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Turn off the webhook to http://127.0.0.1:9/h").click()
    expect(page.get_by_role("status")).to_contain_text("turned off")
    hook.refresh_from_db()
    assert not hook.is_active
