"""A small team's day in Chromium, each member in their own browser context: rita hands
back an item assigned to her; lena leaves an item mid-way, the admin finds her hold on
the Decisions page and releases it, omar is served the item and decides it from the
keyboard, and the admin reads who decided what. (A team walk found no page saying who decided
what, no way to free a left item before its lease ran out, and no hand-back on the item.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from review.models import ReviewAssignment
from review.services import review_bulk_assign
from tests.browser.conftest import DEFAULT_TIMEOUT_MS, login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _page(browser, live_server, user):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(DEFAULT_TIMEOUT_MS)
    login_browser(page, live_server, user)
    return page


def test_a_left_item_is_freed_decided_and_read_on_the_decisions_page(chromium_browser, live_server):
    workspace = make_workspace("team")
    ada = make_user("ada", workspace=workspace, role="admin")
    lena = make_user("lena", workspace=workspace, role="reviewer")
    omar = make_user("omar", workspace=workspace, role="reviewer")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:delta")
    left = queue_claim(source, "contradicted", text="The delta loses land every year.")
    other = queue_claim(source, "abstained", text="The marsh keeps pace with the sea.")
    review_bulk_assign(workspace=workspace, claims=[left], assignee_id=lena.pk, by=ada)
    review_bulk_assign(workspace=workspace, claims=[other], assignee_id=rita.pk, by=ada)

    # rita hands back the item assigned to her, from the item itself: out of her list
    rita_page = _page(chromium_browser, live_server, rita)
    rita_page.goto(f"{live_server.url}/review/?mine=true")
    rita_page.locator("#start-reviewing").click()
    expect(rita_page.locator("#review-item")).to_have_attribute("data-claim", other.public_id)
    rita_page.locator("#btn-hand-back").click()
    expect(rita_page).to_have_url(re.compile(r"/review/\?mine=true$"))
    expect(rita_page.locator("main")).to_contain_text(
        f"Handed back: {other.public_id} is no longer assigned to you"
    )
    expect(rita_page.locator(f'tr[data-claim="{other.public_id}"]')).to_have_count(0)
    assert not ReviewAssignment.objects.filter(claim=other).exists()

    # lena starts on her item, then walks away (her context closes, the lease stays)
    lena_page = _page(chromium_browser, live_server, lena)
    lena_page.goto(f"{live_server.url}/review/?mine=true")
    lena_page.locator("#start-reviewing").click()
    expect(lena_page.locator("#review-item")).to_have_attribute("data-claim", left.public_id)
    expect(lena_page.locator("#review-item")).to_contain_text(
        "served: next by risk: Contradicted by the span; by the filter Whose: Mine"
    )
    lena_page.context.close()

    # the admin sees who holds what and frees it from the item page
    admin = _page(chromium_browser, live_server, ada)
    admin.goto(f"{live_server.url}/review/decisions/")
    lena_row = admin.locator('#team-day tr[data-member="lena"]')
    expect(lena_row).to_contain_text(left.public_id)
    lena_row.get_by_role("link", name=left.public_id).click()
    expect(admin.locator("#review-item")).to_contain_text("lena is reviewing this claim")
    admin.locator("#btn-release-hold").click()
    expect(admin.locator("#review-item")).to_contain_text(
        f"Released lena's hold on {left.public_id}: anyone may review it now."
    )
    expect(admin.locator("#claim-title")).to_be_focused()

    # omar is served it — still lena's, so only where his filter leaves nothing else —
    # and decides from the keyboard; the flash offers Undo
    omar_page = _page(chromium_browser, live_server, omar)
    omar_page.goto(f"{live_server.url}/review/?reason=contradicted")
    omar_page.locator("#start-reviewing").click()
    expect(omar_page.locator("#review-item")).to_have_attribute("data-claim", left.public_id)
    expect(omar_page.locator("#claim-title")).to_be_focused()
    omar_page.keyboard.press("c")
    expect(omar_page.locator("#review-announce")).to_contain_text(
        f"{left.public_id} marked contradicted"
    )

    # the admin reads who decided what, and omar's day beside lena's
    admin.goto(f"{live_server.url}/review/decisions/")
    row = admin.locator(f'#decisions tr[data-claim="{left.public_id}"]')
    expect(row).to_contain_text("omar")
    expect(row.locator(".answer")).to_have_text("Contradicts")
    expect(row.locator(".standing")).to_have_text("Stands.")
    expect(admin.locator('#team-day tr[data-member="omar"] .decided')).to_have_text("1")
    expect(admin.locator('#team-day tr[data-member="lena"] .decided')).to_have_text("0")
    admin.locator('#team-day tr[data-member="omar"] th a').click()
    expect(admin).to_have_url(re.compile(r"reviewer=omar"))
    expect(admin.locator("#decisions tbody tr")).to_have_count(1)
