"""Chromium: the worker console's result is announced and takes the keyboard, and says
truthfully what its verdict rests on."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_verification_focuses_its_verdict(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("worker-focus")
    login_browser(page, live_server, make_user("rita", workspace=workspace, role="reviewer"))

    page.goto(f"{live_server.url}/worker/console")
    page.fill("#id_claim", "Tarn Point Light was first lit in 1858.")
    page.click("main form button[type=submit]")
    verdict = page.locator("main section[role=status][aria-labelledby=verdict-h]")
    expect(verdict).to_contain_text("Verdict: Cannot be verified")
    expect(verdict).to_be_focused()
    # an empty corpus: the verdict rests on nothing, and the page says so
    expect(page.locator("#verdict-rests-on")).to_have_text("nothing: no evidence found")
    expect(page.locator("#id_claim")).to_have_value("Tarn Point Light was first lit in 1858.")
