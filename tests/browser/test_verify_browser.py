"""Chromium: a reviewer pastes claims on "Verify claims", reads the results, opens one."""

from __future__ import annotations

import os

import pytest

from tests.factories import make_source, make_user

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # set by conftest too

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = (
    "The harbour wall was rebuilt in 1998 after the winter storms. It is 412 metres long. "
    "Fishing boats moor on its inner side."
)


def test_paste_claims_see_states_and_open_the_evidence(browser_login, live_server, workspace):
    from playwright.sync_api import expect

    make_source(workspace, ref="source:harbour", text=TEXT)
    reviewer = make_user("rhea", workspace=workspace, role="reviewer")
    page = browser_login(reviewer)
    page.goto(f"{live_server.url}/")
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Verify").click()
    page.get_by_label("Paste claims").fill(
        '{"text": "It is 412 metres long.", "source": "source:harbour"}\n'
        '{"text": "The wall was rebuilt in 2004.", "source": "source:nowhere"}\n'
    )
    page.get_by_role("button", name="Verify claims").click()
    page.wait_for_url("**/verify/jobs/*/")
    rows = page.locator("table.verify-results tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator(".state")).to_have_text("Supported")
    expect(rows.nth(1)).to_contain_text("unknown_source")
    rows.nth(0).get_by_role("link", name="span").click()
    page.wait_for_url("**/v/*")
    expect(page.locator("mark.span.focus")).to_have_text("It is 412 metres long.")
