"""Chromium: a webhook the server refuses (a private address the browser cannot know
about) comes back with the keyboard on the refused field, its error said beside it, and
what was typed still there; a role change that changes nothing says so, with the
keyboard on what it says."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace
from verifier.models import Webhook, WorkspaceEvent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_refused_webhook_focuses_its_url_and_keeps_what_was_typed(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus-hooks")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="admin"))

    page.goto(f"{live_server.url}/audit/webhooks/")
    page.fill("#id_url", "https://10.0.0.1/hook")
    page.check("input[name=events][value='verification.completed']")
    page.fill("#id_threshold", "55")
    page.fill("#id_secret", "a-secret-of-16-chars")
    page.click("#webhook-form button[type=submit]")

    url = page.locator("#id_url")
    expect(url).to_have_attribute("aria-invalid", "true")
    expect(url).to_be_focused()
    expect(page.locator("#id_url_error")).to_contain_text("it is a private address")
    expect(url).to_have_attribute("aria-describedby", "id_url_error")
    expect(url).to_have_value("https://10.0.0.1/hook")
    expect(page.locator("#id_threshold")).to_have_value("55")
    expect(page.locator("input[name=events][value='verification.completed']")).to_be_checked()
    assert not Webhook.objects.exists()


def test_a_role_that_is_already_the_members_says_so_with_focus(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus-roles")
    make_user("rosa", workspace=workspace, role="auditor")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="admin"))

    page.goto(f"{live_server.url}/audit/members/")
    page.get_by_role("button", name="Change the role of rosa").click()
    said = page.locator("main .messages")
    expect(said).to_contain_text("rosa is already Auditor; nothing changed.")
    expect(said).to_be_focused()
    assert not WorkspaceEvent.objects.filter(workspace=workspace).exists()
