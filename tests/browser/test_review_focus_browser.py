"""Chromium, keyboard and no script on the review console: where focus goes after htmx
swaps and full loads, the skip links, keys that cannot act on an excluded item, the
decision bar at 390 px, and Exclude / Note / Restore without JavaScript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def _settled(page) -> None:
    """Wait until htmx has settled its last swap: it wires the swapped-in links up in the
    settle step (20 ms later), and Enter on a link before that loads the page in full
    instead of swapping the results (a flaky focus failure on a busy machine)."""
    busy = ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added"
    expect(page.locator(busy)).to_have_count(0)


def _focused_id(page) -> str:
    return page.evaluate("document.activeElement ? document.activeElement.id : ''")


def test_focus_after_queue_swaps_skip_link_and_item_loads(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("focus")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    for i in range(51):  # two pages of the queue
        queue_claim(source, "abstained", text=f"Abstained claim {i}.")
    last = queue_claim(source, "contradicted", text="The one contradicted claim.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    # The skip link: two Tabs and Enter reach the results heading, one more Start reviewing.
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link:focus")).to_have_text("Skip to the results")
    page.keyboard.press("Enter")
    expect(page.locator("#queue-results-title")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#start-reviewing")).to_be_focused()

    # A page link swaps the results in place: the keyboard goes on from the heading.
    page.locator(".pagination a[rel=next]").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"after="))
    expect(page.locator("#queue-results-title")).to_be_focused()
    _settled(page)
    page.locator(".pagination a[rel=prev]").focus()
    page.keyboard.press("Enter")
    expect(page.locator("tr[data-claim]")).to_have_count(50)
    expect(page.locator("#queue-results-title")).to_be_focused()
    _settled(page)
    # A reason chip too.
    page.locator('a[data-reason="contradicted"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator("tr[data-claim]")).to_have_count(1)
    expect(page.locator("#queue-results-title")).to_be_focused()
    _settled(page)

    # Start reviewing is a full page load: the claim's heading has the keyboard.
    page.locator("#start-reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", last.public_id)
    expect(page.locator("#claim-title")).to_be_focused()

    # The end of the filter, swapped in place: its message has the keyboard and titles the tab.
    page.keyboard.press("j")
    expect(page.locator("#queue-done")).to_be_focused()
    expect(page.locator("#queue-done")).to_contain_text("Nothing left")
    expect(page).to_have_title("Nothing left to review · Spanproof")

    # So has the page the blind toggle reloads. (Blind review then leaves out the reason
    # filter: "next" would serve by the queue's order, not end here.)
    page.goto(f"{live_server.url}/review/item/{last.public_id}/?reason=contradicted")
    page.get_by_role("button", name=re.compile("Blind review")).click()
    expect(page.get_by_role("button", name="Blind review: on")).to_be_visible()
    expect(page.locator("#claim-title")).to_be_focused()


def test_keys_on_an_excluded_item_say_why_and_its_flash_offers_restore(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("excluded-keys")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    first = queue_claim(source, "contradicted", text="The first claim.")
    second = queue_claim(source, "abstained", text="The second claim.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    page.get_by_role("button", name="Start reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    page.keyboard.press("x")
    dialog = page.get_by_role("dialog", name="Exclude this claim")
    expect(dialog).to_be_visible()
    page.locator("#exclude-reason").fill("off topic")
    dialog.get_by_role("button", name="Exclude").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", second.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text(f"{first.public_id} excluded.")
    page.locator("#btn-restore-previous").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text("Restored")
    first.refresh_from_db()
    assert first.state != "excluded"

    first.refresh_from_db()
    from review.services import review_exclude
    from tests.review.conftest import seen

    review_exclude(claim=first, reviewer=reviewer, reason="noise", expected_version=seen(first))
    page.goto(f"{live_server.url}/review/item/{first.public_id}/")
    expect(page.locator("#key-status")).to_be_hidden()
    for key in ("s", "c", "r", "x"):
        page.keyboard.press(key)
        expect(page.locator("#key-status")).to_have_text(
            "This claim is excluded: Restore it before deciding on it or sending it back to "
            "the judge."
        )
    first.refresh_from_db()
    assert first.state == "excluded"


def test_decision_bar_at_390px_never_covers_the_focused_control(chromium_browser, live_server):
    workspace = make_workspace("phone-focus")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace, ref="source:plain"), "abstained")
    context = chromium_browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        login_browser(page, live_server, reviewer)
        page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
        expect(page.locator("#claim-title")).to_be_focused()
        covered = []
        for target in ("decision-note", "btn-skip", "btn-rejudge", "btn-exclude", "btn-note"):
            # The control just below the window's bottom edge, the one before it focused:
            # Tab scrolls it into view.
            page.evaluate(
                "(id) => document.getElementById(id).focus({preventScroll: true})", target
            )
            page.keyboard.press("Shift+Tab")
            page.evaluate(
                """(id) => window.scrollBy(0, document.getElementById(id).getBoundingClientRect()
                                              .top - window.innerHeight + 4)""",
                target,
            )
            page.keyboard.press("Tab")
            assert _focused_id(page) == target
            gap = page.evaluate(
                """(id) => document.getElementById("decision-bar").getBoundingClientRect().top
                          - document.getElementById(id).getBoundingClientRect().bottom""",
                target,
            )
            if gap < 0:
                covered.append((target, gap))
        assert covered == []
    finally:
        context.close()


def test_rule_set_form_at_390px_is_no_wider_than_the_window(chromium_browser, live_server):
    workspace = make_workspace("phone-rules")
    admin = make_user("ada", workspace=workspace, role="admin")
    context = chromium_browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        login_browser(page, live_server, admin)
        page.goto(f"{live_server.url}/audit/rules/new/")
        expect(page.locator("#rule-set-form")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        widest = page.eval_on_selector_all(
            "#rule-set-form fieldset", "els => Math.max(...els.map(e => e.offsetWidth))"
        )
        assert widest <= PHONE["width"]
    finally:
        context.close()


def test_exclude_note_and_restore_without_javascript(chromium_browser, live_server):
    workspace = make_workspace("no-script")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    first = queue_claim(source, "contradicted", text="The first claim.")
    second = queue_claim(source, "abstained", text="The second claim.")
    context = chromium_browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        login_browser(page, live_server, reviewer)
        page.goto(f"{live_server.url}/review/item/{first.public_id}/")
        page.get_by_role("link", name=re.compile("Note…")).click()
        page.locator("#note-text").fill("check the map")
        page.get_by_role("button", name="Add note").click()
        expect(page).to_have_url(f"{live_server.url}/review/item/{first.public_id}/")
        expect(page.locator("#review-item .flash")).to_have_text("Note added.")
        expect(page.locator("ul.notes")).to_contain_text("check the map")

        page.get_by_role("link", name=re.compile("Exclude…")).click()
        expect(page.locator("#exclude-reason")).to_be_visible()
        expect(page.locator("#exclude-reason")).to_be_focused()
        page.locator("#exclude-reason").fill("off topic")
        page.get_by_role("button", name="Exclude", exact=True).click()
        expect(page).to_have_url(f"{live_server.url}/review/item/{second.public_id}/")
        expect(page.locator("#review-item .flash")).to_contain_text(f"{first.public_id} excluded.")
        first.refresh_from_db()
        assert first.state == "excluded"

        page.get_by_role("button", name=f"Restore {first.public_id}").click()
        expect(page).to_have_url(f"{live_server.url}/review/item/{first.public_id}/")
        expect(page.locator("#review-item .flash")).to_contain_text("Restored")
        first.refresh_from_db()
        assert first.state != "excluded"
    finally:
        context.close()
