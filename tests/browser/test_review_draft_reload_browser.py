"""Chromium on the review item: a note typed into the decision form survives a reload of
the page (twice), and is gone once the decision it was typed for is taken."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_typed_note_survives_a_reload_until_the_decision_is_taken(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("draft-reload")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    claims = [queue_claim(source, "abstained", text=f"Abstained claim {i}.") for i in range(2)]
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    first = page.locator("#review-item").get_attribute("data-claim")
    assert first in {c.public_id for c in claims}

    page.locator("#decision-note").fill("Checked against the second paragraph.")
    for _ in range(2):
        page.reload()
        expect(page.locator("#decision-note")).to_have_value(
            "Checked against the second paragraph."
        )

    page.locator("#claim-title").focus()
    page.keyboard.press("s")
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", first)
    page.goto(f"{live_server.url}/review/item/{first}/")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first)
    expect(page.locator("#decision-note")).to_have_value("")


def test_signing_out_forgets_the_tabs_drafts(browser_page, live_server):
    """A draft kept for a session that might end is not kept for the next person to use
    the tab: signing out clears them (a reload before it still had the note back)."""
    page = browser_page
    workspace = make_workspace("draft-sign-out")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    queue_claim(source, "abstained", text="Abstained claim.")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    item_url = page.url
    page.locator("#decision-note").fill("A private thought about this claim.")
    page.reload()
    expect(page.locator("#decision-note")).to_have_value("A private thought about this claim.")

    page.locator("#sign-out-form button").click()
    expect(page).not_to_have_url(item_url)
    kept = page.evaluate(
        "Object.keys(window.sessionStorage).filter(k => k.startsWith('spanproof:'))"
    )
    assert kept == []
    login_browser(page, live_server, reviewer)
    page.goto(item_url)
    expect(page.locator("#decision-note")).to_have_value("")
