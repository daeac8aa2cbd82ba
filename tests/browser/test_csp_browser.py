"""Chromium reports no Content-Security-Policy violation on the console's htmx pages."""

from __future__ import annotations

import pytest

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_console_pages_run_under_the_csp_without_violations(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("csp")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace, ref="source:a"), "abstained")
    violations: list[str] = []
    page.on(
        "console",
        lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    login_browser(page, live_server, reviewer)
    for path in (
        "/review/",
        f"/review/item/{claim.public_id}/",
        f"/audit/claims/{claim.public_id}/",
    ):
        response = page.goto(live_server.url + path)
        assert response is not None and response.ok, path
        assert "script-src 'self'" in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
    assert page.evaluate("typeof htmx") == "object"  # htmx loaded from static
    assert violations == []
