"""A review team's week in Chromium, at more than a page of claims: the admin hands out
the work nobody has yet, a page at a time, from the keyboard. (A week's walk found no
filter for the claims nobody is assigned, and no way to tick a page of rows at once:
assigning fifty claims took fifty presses of Space.)"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from review.models import ReviewAssignment
from review.services import review_bulk_assign
from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_admin_hands_out_a_page_of_unassigned_claims_from_the_keyboard(
    browser_page, live_server
):
    workspace = make_workspace("week")
    ada = make_user("ada", workspace=workspace, role="admin")
    omar = make_user("omar", workspace=workspace, role="reviewer")
    make_user("lena", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:delta")
    claims = [queue_claim(source, "abstained", text=f"Claim {i} on the delta.") for i in range(55)]
    review_bulk_assign(workspace=workspace, claims=claims[:3], assignee_id=omar.pk, by=ada)
    page = browser_page
    login_browser(page, live_server, ada)
    page.goto(f"{live_server.url}/review/")

    # Whose: Nobody's lists the 52 claims nobody has
    page.locator("#id_mine").focus()
    page.locator("#id_mine").select_option("nobody")
    expect(page).to_have_url(re.compile(r"mine=nobody"))
    expect(page.locator("#queue-results-title")).to_have_text("Claims in this filter: 52")
    # the field keeps the focus; what a screen reader hears is how many the filter holds
    expect(page.locator("#id_mine")).to_be_focused()
    expect(page.locator("#queue-announce")).to_have_text("Claims in this filter: 52")
    expect(page.locator(f'tr[data-claim="{claims[0].public_id}"]')).to_have_count(0)

    every = page.locator("#select-page")
    expect(page.locator("label[for=select-page]")).to_have_text("All 50 rows on this page")
    every.focus()
    page.keyboard.press("Space")
    expect(page.locator("input[name=claims]:checked")).to_have_count(50)

    # one row taken out again: the page's box says some, not all
    page.locator("input[name=claims]").first.focus()
    page.keyboard.press("Space")
    expect(every).not_to_be_checked()
    assert page.evaluate("() => document.getElementById('select-page').indeterminate")

    page.locator("#bulk-action").select_option("assign")
    page.locator("#bulk-assignee").select_option(label="lena")
    page.locator("#bulk-form button[type=submit]").focus()
    page.keyboard.press("Enter")
    expect(page.locator("main")).to_contain_text("Assigned 49 claims to lena.")
    assert ReviewAssignment.objects.filter(assignee__username="lena").count() == 49
    # what is left to hand out: the row taken out and the two past the first page
    expect(page).to_have_url(re.compile(r"/review/\?(state=queue&)?mine=nobody$"))
    expect(page.locator("#queue-results-title")).to_have_text("Claims in this filter: 3")
    expect(page.locator("input[name=claims]")).to_have_count(3)
    expect(every).not_to_be_checked()
