"""Chromium: a reviewer whose session ends mid-review. The decision they send takes the
whole page to the sign-in page, which says the session ended and brings them back to the
item (never a sign-in form drawn inside the item); a request refused for another reason
(a form whose CSRF cookie is gone) shows a message the screen reader reads, and keeps
what they typed. The note typed with the decision comes back with the item's page, once."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import Verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _item_page(page, live_server):
    workspace = make_workspace("session-end")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace, ref="source:plain"), "abstained")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    page.fill("#decision-note", "checked against page 4")
    return claim


def test_a_decision_after_the_session_ended_goes_to_sign_in_and_back(browser_page, live_server):
    page = browser_page
    claim = _item_page(page, live_server)
    decided_before = Verdict.objects.filter(claim=claim).count()
    page.context.clear_cookies(name="sessionid")

    page.click("#btn-supported")

    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=.*session_ended=1"))
    expect(page.locator("header.topbar")).to_have_count(1)  # the whole page, not a part
    expect(page.locator("#session-ended")).to_contain_text("Your session ended")
    assert Verdict.objects.filter(claim=claim).count() == decided_before
    page.fill("#id_username", "rita")
    page.fill("#id_password", "pw-for-tests-123")
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{live_server.url}/review/item/{claim.public_id}/")
    # the note typed before the session ended is back, and the page says so
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    expect(page.locator("#key-status")).to_contain_text("is back in the note field")
    page.click("#btn-supported")
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", claim.public_id)
    human = Verdict.objects.get(claim=claim, judge_family="human")
    assert human.note == "checked against page 4"
    # sent: it is not put back again
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    expect(page.locator("#decision-note")).to_have_value("")


def test_a_refused_request_says_so_and_keeps_what_was_typed(browser_page, live_server):
    page = browser_page
    claim = _item_page(page, live_server)
    page.context.clear_cookies(name="csrftoken")

    page.click("#btn-contradicted")

    alert = page.locator("#request-error[role=alert]")
    expect(alert).to_contain_text("Your last action was refused")
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    assert not Verdict.objects.filter(claim=claim, judge_family="human").exists()
    page.reload()  # what the message says to do: the note comes back with the page
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")


def test_a_decision_refused_for_anothers_lease_keeps_the_note_for_later(browser_page, live_server):
    """The 409 page of an item another reviewer took is read-only (no note field): the
    note stays kept for this tab and is back when the item can be decided again."""
    from review.models import ReviewLease
    from review.services import review_lease_claim

    page = browser_page
    claim = _item_page(page, live_server)
    otto = make_user("otto", workspace=claim.workspace, role="reviewer")
    ReviewLease.objects.filter(claim=claim).delete()
    review_lease_claim(claim=claim, reviewer=otto, served_reason="t")

    page.click("#btn-supported")

    expect(page.locator("#review-item")).to_contain_text("otto is reviewing this claim")
    expect(page.locator("#decision-note")).to_have_count(0)
    ReviewLease.objects.filter(claim=claim).delete()  # otto moved on
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
