"""Chromium on the review console: u and k say why they cannot act, the flash after an
action reaches a live region that stays in the page, queue checkboxes named by their
claim, and the source pane right after the claim on a narrow screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def _reviewer_with_claims(name: str, n: int = 2):
    workspace = make_workspace(name)
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    claims = [
        queue_claim(source, "abstained", text=f"Abstained claim number {i}.") for i in range(n)
    ]
    return reviewer, claims


def test_u_and_k_say_why_they_cannot_act(browser_page, live_server):
    page = browser_page
    reviewer, _claims = _reviewer_with_claims("keys-why")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    expect(page.locator("#claim-title")).to_be_focused()
    expect(page.locator("#link-previous")).to_have_count(0)
    expect(page.locator("#btn-undo, #btn-undo-previous")).to_have_count(0)

    page.keyboard.press("k")
    expect(page.locator("#key-status")).to_have_text(
        "No previous item: this is the first item you opened since Start reviewing."
    )
    page.keyboard.press("u")
    expect(page.locator("#key-status")).to_contain_text(
        "Nothing to undo: no decision of yours on this claim can still be taken back"
    )


def test_the_flash_after_an_action_reaches_a_live_region_that_stays(browser_page, live_server):
    page = browser_page
    reviewer, _claims = _reviewer_with_claims("announce")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    first = page.locator("#review-item").get_attribute("data-claim")
    page.evaluate("window.__announcer = document.getElementById('review-announce')")
    expect(page.locator("#review-announce")).to_have_text("")

    page.keyboard.press("s")
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", first)
    expect(page.locator("#review-flash")).to_contain_text("marked supported")
    announce = page.locator("#review-announce")
    expect(announce).to_contain_text(f"{first} marked supported")
    expect(announce).to_contain_text("Press u to undo it.")
    # the same element, outside the swapped item, a polite live region
    assert page.evaluate(
        "window.__announcer === document.getElementById('review-announce')"
        " && !document.getElementById('review-item').contains(window.__announcer)"
    )
    assert announce.get_attribute("role") == "status"
    # the flash itself arrives filled: it is not a second live region
    assert page.locator("#review-flash").get_attribute("role") is None
    expect(page.locator("#claim-title")).to_be_focused()


def test_queue_checkboxes_are_named_by_their_claim_and_show_its_id(browser_page, live_server):
    page = browser_page
    reviewer, claims = _reviewer_with_claims("checkbox-names")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    for claim in claims:
        box = page.get_by_role("checkbox", name=f"Select: {claim.text}", exact=True)
        expect(box).to_have_count(1)
        expect(box).to_have_attribute("value", claim.public_id)
        row = page.locator(f'tr[data-claim="{claim.public_id}"]')
        expect(row.locator("code.claim-id")).to_have_text(claim.public_id)
        expect(row.locator("code.claim-id")).to_be_visible()


def test_on_a_narrow_screen_the_source_pane_follows_the_claim(chromium_browser, live_server):
    reviewer, claims = _reviewer_with_claims("narrow-order", n=1)
    for viewport in (PHONE, {"width": 1280, "height": 800}):
        context = chromium_browser.new_context(viewport=viewport)
        page = context.new_page()
        try:
            login_browser(page, live_server, reviewer)
            page.goto(f"{live_server.url}/review/item/{claims[0].public_id}/")
            claim = page.locator("#claim-title").bounding_box()
            actions = page.locator("#decide-form").bounding_box()
            source = page.locator("#source-text").bounding_box()
            history = page.get_by_role("heading", name="Verdict history").bounding_box()
            if viewport is PHONE:
                # the claim and its actions, then the source with its span, then the rest
                assert claim["y"] < source["y"] < history["y"], (claim, source, history)
                assert actions["y"] < source["y"]
            else:
                # side by side: the source pane on the right, beside the claim
                assert source["x"] > claim["x"] + claim["width"] / 2
                assert source["y"] < history["y"]
                assert history["y"] > actions["y"]
        finally:
            context.close()
