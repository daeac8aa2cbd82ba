"""Chromium: what a reviewer sees when things change under an open page. The workspace
switched in another tab, their role lowered or their membership taken away, a form's
security token renewed by signing in again elsewhere: the action does nothing and the
alert says why in words, with what was typed kept (and, for the workspace, a button to
switch back). The lease running out says so, and that the claim can still be decided. A
note typed in the Note form when the session ended comes back with the item. A server
that fails or cannot be reached is said in the alert too."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from review.models import ReviewLease, ReviewNote
from tests.browser.conftest import DEFAULT_TIMEOUT_MS, login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import Membership, Verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-for-tests-123"  # tests.factories.make_user's


def _item(page, live_server, name: str, *, note: str = "checked against page 4"):
    workspace = make_workspace(name)
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace, ref="source:plain"), "abstained")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", claim.public_id)
    # the item is a page of its own: its keys work once review.js has run, which the
    # attribute above does not wait for (a key pressed earlier is lost on a busy machine)
    page.wait_for_load_state("load")
    if note:
        page.fill("#decision-note", note)
    page.locator("#claim-title").focus()
    return reviewer, claim


def _human(claim) -> bool:
    return Verdict.objects.filter(claim=claim, judge_family="human").exists()


def _switch_in_another_tab(page, live_server, slug: str, workspace_name: str):
    other = page.context.new_page()
    other.goto(f"{live_server.url}/")
    other.select_option("#workspace-select", value=slug)
    other.locator("form[action='/workspace/switch'] button").click()
    expect(other.locator(".who .workspace")).to_have_text(workspace_name)
    other.close()


def test_a_chip_after_the_workspace_changed_in_another_tab_offers_to_switch_back(
    browser_page, live_server
):
    page = browser_page
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    reviewer = make_user("rita", workspace=acme, role="reviewer")
    Membership.objects.create(workspace=globex, user=reviewer, role="reviewer")
    claim = queue_claim(make_source(acme, ref="source:plain"), "abstained")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    expect(page.locator(".who .workspace")).to_have_text("Workspace acme")
    _switch_in_another_tab(page, live_server, "globex", "Workspace globex")

    page.locator(".chips a", has_text="Judge undecided").click()

    alert = page.locator("#request-error[role=alert]")
    expect(alert).to_contain_text(
        "This page shows the workspace “Workspace acme”, but you are now working in "
        "“Workspace globex” (switched in another tab), so nothing was done."
    )
    # globex's (empty) queue was not swapped in under acme's name
    expect(page.locator(f'tr[data-claim="{claim.public_id}"]')).to_be_visible()
    alert.get_by_role("button", name="Switch back to “Workspace acme”").click()
    expect(page).to_have_url(f"{live_server.url}/review/")
    expect(page.locator(".who .workspace")).to_have_text("Workspace acme")
    expect(page.locator(f'tr[data-claim="{claim.public_id}"]')).to_be_visible()


def test_a_decision_after_the_role_was_lowered_says_the_role(browser_page, live_server):
    page = browser_page
    reviewer, claim = _item(page, live_server, "lowered")
    Membership.objects.filter(user=reviewer).update(role="auditor")

    page.keyboard.press("s")

    alert = page.locator("#request-error[role=alert]")
    expect(alert).to_contain_text("Your role in Workspace lowered is Auditor.")
    expect(alert).to_contain_text("Nothing was saved.")
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    assert not _human(claim)


def test_a_decision_after_being_taken_out_of_the_workspace_says_so(browser_page, live_server):
    page = browser_page
    reviewer, claim = _item(page, live_server, "taken-out")
    Membership.objects.filter(user=reviewer).delete()

    page.keyboard.press("s")

    expect(page.locator("#request-error[role=alert]")).to_contain_text(
        "You are no longer a member of the workspace this page is from"
    )
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    assert not _human(claim)


def test_a_decision_after_signing_in_again_in_another_tab_says_the_form_expired(
    browser_page, live_server
):
    """Signing in renews the security token: the open page's token is out of date."""
    page = browser_page
    _, claim = _item(page, live_server, "signed-in-again")
    other = page.context.new_page()
    other.goto(f"{live_server.url}/")
    other.get_by_role("button", name="Sign out").click()
    other.fill("#id_username", "rita")
    other.fill("#id_password", PASSWORD)
    other.locator("button[type=submit]").click()
    expect(other.locator(".who .user")).to_have_text("rita")
    other.close()

    page.keyboard.press("s")

    alert = page.locator("#request-error[role=alert]")
    expect(alert).to_contain_text(
        "Your last action was refused. The form was sent from a page opened before you last "
        "signed in, or kept open too long, so its security token no longer matches your session."
    )
    expect(alert).to_contain_text("then reload the page")
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    assert not _human(claim)
    page.reload()  # as the alert says: the note comes back with the page, which works
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    page.locator("#btn-supported").click()
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", claim.public_id)
    assert _human(claim)


def test_the_lease_running_out_says_the_claim_can_still_be_decided(browser_page, live_server):
    page = browser_page
    _, claim = _item(page, live_server, "lease-out", note="")
    expect(page.locator("time[data-countdown]")).to_have_text(re.compile(r"^1[45]:\d\d$"))
    # the lease runs out while the page is open
    ReviewLease.objects.filter(claim=claim).update(expires_at=timezone.now() - timedelta(seconds=1))
    page.evaluate(
        "document.querySelector('time[data-countdown]')"
        ".setAttribute('datetime', new Date(Date.now() - 1000).toISOString())"
    )

    expect(page.locator("time[data-countdown]")).to_have_text("0:00")
    expect(page.locator("#key-status")).to_have_text(
        "Your lease on this claim has expired: another reviewer may be served it now. "
        "You can still decide it while nobody else is reviewing it; press j for the next item."
    )
    page.keyboard.press("d")  # as it says
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", claim.public_id)
    assert _human(claim)


def test_a_note_sent_after_the_session_ended_comes_back_in_its_form(browser_page, live_server):
    page = browser_page
    _, claim = _item(page, live_server, "note-session", note="")
    page.keyboard.press("n")
    expect(page.locator("#note-dialog")).to_be_visible()
    page.fill("#note-text", "The figure is from the 2019 survey, not 2021.")
    page.context.clear_cookies(name="sessionid")

    page.locator("#note-dialog button[type=submit]").click()

    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=.*session_ended=1"))
    page.fill("#id_username", "rita")
    page.fill("#id_password", PASSWORD)
    page.locator("button[type=submit]").click()
    expect(page).to_have_url(re.compile(rf"/review/item/{re.escape(claim.public_id)}/"))
    expect(page.locator("#note-dialog")).to_be_visible()
    expect(page.locator("#note-text")).to_have_value(
        "The figure is from the 2019 survey, not 2021."
    )
    expect(page.locator("#key-status")).to_have_text(
        "The note you were adding, not yet saved, is back in its form."
    )
    page.locator("#note-dialog button[type=submit]").click()
    expect(page.locator("#note-dialog")).not_to_be_visible()
    assert ReviewNote.objects.filter(claim=claim).values_list("text", flat=True).get() == (
        "The figure is from the 2019 survey, not 2021."
    )
    page.reload()  # sent: not put back again
    expect(page.locator("#note-dialog")).not_to_be_visible()
    expect(page.locator("#note-text")).to_have_value("")


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (502, "The server could not complete your last action (error 502)."),
        (500, "The server could not complete your last action (error 500)."),
        (None, "The server could not be reached: nothing was saved."),
    ],
)
def test_a_server_that_fails_or_cannot_be_reached_is_said(browser_page, live_server, failure, said):
    page = browser_page
    _, claim = _item(page, live_server, f"server-{failure or 'down'}")

    def fail(route, request):
        if failure is None:
            route.abort("connectionrefused")
        else:
            route.fulfill(status=failure, body="<html><body>Bad gateway</body></html>")

    page.route("**/decide/**", fail)
    page.keyboard.press("s")

    alert = page.locator("#request-error[role=alert]")
    # the page's timeout, not expect's 5 s: a busy machine (a whole suite on two cores)
    # took longer to draw the alert
    expect(alert).to_contain_text(said, timeout=DEFAULT_TIMEOUT_MS)
    expect(page.locator("#review-item")).to_have_attribute("data-claim", claim.public_id)
    expect(page.locator("#decision-note")).to_have_value("checked against page 4")
    assert not _human(claim)
    page.unroute("**/decide/**")
    page.keyboard.press("s")  # again, once the server answers: done, and the alert goes
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", claim.public_id)
    expect(alert).to_have_count(0)
    assert Verdict.objects.get(claim=claim, judge_family="human").note == "checked against page 4"
