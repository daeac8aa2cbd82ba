"""Back after a decision, then `s` again: the page is current and nothing is recorded twice."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from review.models import ReviewLease
from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim, seen
from verifier.models import Verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_back_then_s_does_not_record_a_second_verdict(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-stale")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace)
    first = queue_claim(source, "contradicted", text="The first claim.")
    second = queue_claim(source, "abstained", text="The second claim.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{first.public_id}/")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    page.keyboard.press("s")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", second.public_id)

    page.go_back()
    expect(page).to_have_url(re.compile(re.escape(first.public_id)))
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    # The page is the current item, not the snapshot taken before the decision.
    expect(page.locator("#review-item .state")).to_have_text("Supported")
    page.keyboard.press("s")
    expect(page.get_by_role("alert")).to_contain_text("Already decided by you at")
    expect(page.get_by_role("alert")).to_contain_text("Open the current item")
    assert Verdict.objects.filter(claim=first, reviewer=reviewer).count() == 1


def test_stale_page_after_another_reviewer_decided_swaps_to_the_current_item(
    browser_page, live_server
):
    page = browser_page
    workspace = make_workspace("browser-stale-two")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    omar = make_user("omar", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace), "contradicted", text="A contested claim.")
    login_browser(page, live_server, rita)
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    expect(page.locator("#review-item .state")).to_have_text("Contradicted")

    # Rita's lease runs out; Omar decides meanwhile.
    from review.services import review_decide

    ReviewLease.objects.filter(claim=claim).delete()
    review_decide(claim=claim, reviewer=omar, decision="supported", expected_version=seen(claim))

    page.keyboard.press("c")
    expect(page.get_by_role("alert")).to_contain_text("Already decided by omar at")
    expect(page.locator("#review-item .state")).to_have_text("Supported")
    assert Verdict.objects.filter(claim=claim, reviewer=rita).count() == 0
