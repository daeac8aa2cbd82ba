"""Chromium: after a full page load the keyboard is where the person needs it — on the
first invalid field of a refused form, or on the message that says what an action did."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_refused_form_focuses_its_field_and_a_success_its_message(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus-forms")
    admin = make_user("ada", workspace=workspace, role="admin")
    make_user("rosa")
    login_browser(page, live_server, admin)

    page.goto(f"{live_server.url}/audit/members/")
    page.fill("#id_username", "nobody-here")
    page.locator("#id_username").press("Enter")
    expect(page.locator("#id_username")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#id_username")).to_be_focused()

    page.fill("#id_username", "rosa")
    page.locator("#id_username").press("Enter")
    expect(page.locator("main .messages")).to_contain_text("rosa")
    expect(page.locator("main .messages")).to_be_focused()


def test_a_refused_api_key_focuses_its_name_and_a_new_key_its_panel(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus-keys")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="admin"))

    page.goto(f"{live_server.url}/audit/api-keys/")
    page.fill("#id_name", "   ")  # passes the browser's check, not the server's
    page.click("#api-key-form button[type=submit]")
    expect(page.locator("#id_name")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#id_name")).to_be_focused()

    page.fill("#id_name", "nightly export")
    page.click("#api-key-form button[type=submit]")
    expect(page.locator("section.key-once")).to_contain_text("nightly export")
    expect(page.locator("section.key-once")).to_be_focused()


def test_an_empty_ingest_form_focuses_what_it_says(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus-ingest")
    login_browser(page, live_server, make_user("rita", workspace=workspace, role="reviewer"))

    page.goto(f"{live_server.url}/ingest/")
    page.click("#ingest-form button[type=submit]")
    error = page.locator("#ingest-form-error[role=alert]")
    expect(error).to_contain_text("Paste some text or choose at least one file.")
    expect(error).to_be_focused()
