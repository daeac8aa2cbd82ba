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
    # The API docs are Swagger UI, not a console page: they load, without the console's nav.
    assert "/connect/v1/docs" in paths
    paths.remove("/connect/v1/docs")
    docs = page.goto(live_server.url + "/connect/v1/docs")
    assert docs is not None and docs.ok
    page.goto(live_server.url + "/")
    for path in paths:
        page.locator(f'nav[aria-label="Main"] a[href="{path}"]').click()
        page.wait_for_load_state("networkidle")
        expect(page.locator(f'nav[aria-label="Main"] a[href="{path}"]')).to_have_attribute(
            "aria-current", "page"
        )
    assert missing == []


def test_no_page_is_wider_than_a_390px_window(chromium_browser, live_server):

    workspace = make_workspace("narrow")
    admin = make_user("ada", workspace=workspace, role="admin")
    source = make_source(workspace, ref="source:a_rather_long_reference_name_for_a_source")
    claim = queue_claim(source, "contradicted")
    context = chromium_browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        login_browser(page, live_server, admin)
        paths = [
            "/",
            "/review/",
            f"/review/item/{claim.public_id}/",
            "/audit/claims/",
            f"/audit/claims/{claim.public_id}/",
            "/audit/sources/",
            f"/audit/sources/{source.pk}/",
            "/ingest/",
            "/audit/rag/",
            "/audit/memory/",
            "/audit/traces/",
            "/audit/quality/",
            "/audit/rules/",
            "/audit/api-keys/",
            "/review/relations/",
            "/review/guidelines/",
            "/glossary/",
        ]
        too_wide = {}
        for path in paths:
            response = page.goto(live_server.url + path)
            assert response is not None and response.ok, path
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 390:
                too_wide[path] = width
        assert too_wide == {}
        # The top bar wraps instead of overflowing; the queue's rows are cards that fit
        # (issue 40.3), and a wide table scrolls in its own box.
        page.goto(live_server.url + "/review/")
        nav = page.locator('nav[aria-label="Main"]').bounding_box()
        assert nav is not None and nav["x"] + nav["width"] <= 390
        table = page.locator("table.review-queue")
        assert table.evaluate("t => t.scrollWidth <= t.clientWidth")
        page.goto(live_server.url + "/audit/claims/")
        table = page.locator("main table").first
        assert table.evaluate("t => getComputedStyle(t).overflowX") == "auto"
    finally:
        context.close()
