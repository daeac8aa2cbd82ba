"""Shared browser fixtures: Debian's Chromium driven by Playwright against live_server.

Playwright's sync API runs an event loop in the test thread, so Django's async-safety
check is relaxed for browser tests (the ORM is still used synchronously).
"""

from __future__ import annotations

import os

import pytest
from django.test import Client

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEFAULT_TIMEOUT_MS = 10_000


@pytest.fixture
def chromium_browser():
    """Debian's Chromium (never `playwright install`), launched per test.

    Per test rather than per session: Playwright's sync API keeps an asyncio loop
    running in the main thread while it is open, which would leak into later
    non-browser tests (``asyncio.run`` refuses to start inside a running loop).
    """
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"Chromium is not installed at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page(chromium_browser):
    """A fresh page in its own context (own cookies) for one test."""
    context = chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(DEFAULT_TIMEOUT_MS)
    try:
        yield page
    finally:
        context.close()


def login_browser(page, live_server, user) -> None:
    """Sign ``user`` in by giving the page the session cookie of a forced login."""
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )


@pytest.fixture
def browser_login(browser_page, live_server):
    """Call with a user: the page is signed in as them on live_server."""

    def login(user):
        login_browser(browser_page, live_server, user)
        return browser_page

    return login
