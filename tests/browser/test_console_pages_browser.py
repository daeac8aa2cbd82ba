"""Chromium walks every nav entry as each role: no 404 (favicon included); at 390 px
wide no page is wider than the window."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _nav_paths(page) -> list[str]:
    return page.eval_on_selector_all(
        'nav[aria-label="Main"] a', "links => links.map(a => a.getAttribute('href'))"
    )


@pytest.mark.parametrize("role", ["reviewer", "auditor", "admin"])
def test_every_nav_entry_loads_without_a_404(browser_page, live_server, role):
    page = browser_page
    workspace = make_workspace(f"nav-{role}")
    user = make_user(f"u-{role}", workspace=workspace, role=role)
    queue_claim(make_source(workspace, ref="source:a"), "abstained")
    missing: list[str] = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    login_browser(page, live_server, user)
    page.goto(live_server.url + "/")
    paths = _nav_paths(page)
    assert "/ingest/" in paths and "/audit/rag/" in paths and "/audit/memory/" in paths
    assert ("/audit/rules/" in paths) is (role == "admin")
    for path in paths:
        page.locator(f'nav[aria-label="Main"] a[href="{path}"]').click()
        page.wait_for_load_state("networkidle")
        expect(page.locator(f'nav[aria-label="Main"] a[href="{path}"]')).to_have_attribute(
            "aria-current", "page"
        )
    assert missing == []
