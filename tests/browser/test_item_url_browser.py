"""Chromium on an item page opened by its address: after each action that loads another
item in place (decide, next, the flash's Undo) the address bar names the item shown, so a
reload or a shared link shows that claim and Back goes to the item before it."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _settled(page: Page) -> None:
    """Wait until htmx has settled its last swap (and pushed its address)."""
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    expect(page.locator(busy)).to_have_count(0)


def _shown(page: Page) -> str:
    return page.locator("#review-item").get_attribute("data-claim") or ""


def _item_address(live_server: LiveServer, public_id: str) -> str:
    return f"{live_server.url}/review/item/{public_id}/"


def _press_and_leave(page: Page, key: str, leaving: str) -> str:
    """Press ``key`` on item ``leaving``; return the item loaded in its place."""
    page.keyboard.press(key)
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", leaving)
    _settled(page)
    return _shown(page)


def test_address_follows_the_item_after_decide_next_and_undo(
    browser_page: Page, live_server: LiveServer
) -> None:
    page = browser_page
    workspace = make_workspace("item-url")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    first = queue_claim(source, "contradicted", text="The first claim.")
    for i in range(3):
        queue_claim(source, "abstained", text=f"Abstained claim {i}.")
    login_browser(page, live_server, reviewer)

    # Opened by its address (not by Start reviewing), then d: the next item, its address.
    page.goto(_item_address(live_server, first.public_id))
    expect(page.locator("#claim-title")).to_be_focused()
    second = _press_and_leave(page, "d", first.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text("marked not stated")
    expect(page).to_have_url(_item_address(live_server, second))

    # The flash's Undo loads the decided claim again: the address names it.
    page.keyboard.press("u")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text("Undone")
    _settled(page)
    expect(page).to_have_url(_item_address(live_server, first.public_id))

    # Back walks the items shown, one by one, and each shows its claim.
    page.go_back()
    expect(page).to_have_url(_item_address(live_server, second))
    expect(page.locator("#review-item")).to_have_attribute("data-claim", second)
    page.go_back()
    expect(page).to_have_url(_item_address(live_server, first.public_id))
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)

    # Next (j): the item it serves, its address; a reload (a shared link) shows that claim.
    third = _press_and_leave(page, "j", first.public_id)
    expect(page).to_have_url(_item_address(live_server, third))
    page.reload()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", third)

    # Decide on it: the next one's address; Back: the one decided.
    fourth = _press_and_leave(page, "d", third)
    expect(page).to_have_url(_item_address(live_server, fourth))
    page.go_back()
    expect(page).to_have_url(_item_address(live_server, third))
    expect(page.locator("#review-item")).to_have_attribute("data-claim", third)
