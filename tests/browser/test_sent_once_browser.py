"""Chromium: an action is sent once. A key held down (its repeats) acts on one item, not on
each item loaded in place meanwhile; a second action on the item while the first is on
its way waits instead of replacing the first's answer (and its Undo); a form sent without
htmx (a bulk action's confirmation) clicked twice is sent once."""

from __future__ import annotations

import contextlib

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import Claim, Verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Counts the requests htmx sends (not those it was told not to send), in the page itself.
COUNT_SENT = """() => {
  window.__sent = [];
  document.addEventListener("htmx:beforeSend", (e) => {
    window.__sent.push(e.detail.requestConfig.path);
  });
}"""


def _reviewing(page, live_server, name: str, n: int = 3):
    workspace = make_workspace(name)
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    claims = [queue_claim(source, "abstained", text=f"Abstained claim {i}.") for i in range(n)]
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    page.locator("#start-reviewing").click()
    expect(page.locator("#claim-title")).to_be_focused()
    return claims


def _decided(public_id: str) -> list[str]:
    return list(
        Verdict.objects.filter(claim__public_id=public_id, judge_family="human").values_list(
            "label", flat=True
        )
    )


def test_a_held_key_decides_one_claim_not_the_next_ones(browser_page, live_server):
    page = browser_page
    _reviewing(page, live_server, "held-key")
    first = page.locator("#review-item").get_attribute("data-claim")
    page.evaluate(COUNT_SENT)

    page.keyboard.down("d")
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", first)
    second = page.locator("#review-item").get_attribute("data-claim")
    page.keyboard.down("d")  # the key is still down: a repeat
    page.keyboard.down("d")
    page.keyboard.up("d")

    assert page.evaluate("window.__sent.length") == 1
    expect(page.locator("#review-item")).to_have_attribute("data-claim", second)
    assert _decided(first) == ["not_stated"] and _decided(second) == []
    page.keyboard.press("d")  # pressed again: decided, as a new press
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", second)
    assert _decided(second) == ["not_stated"]


def test_a_second_action_while_the_first_is_on_its_way_waits(browser_page, live_server):
    page = browser_page
    _reviewing(page, live_server, "in-flight")
    first = page.locator("#review-item").get_attribute("data-claim")
    page.evaluate(COUNT_SENT)
    # the decision's answer is slow to come: j is pressed before it
    page.evaluate(
        """() => {
      const send = XMLHttpRequest.prototype.send;
      XMLHttpRequest.prototype.send = function (body) {
        setTimeout(() => send.call(this, body), 400);
      };
    }"""
    )

    page.keyboard.press("d")
    page.keyboard.press("j")
    expect(page.locator("#key-status")).to_have_text(
        "Your last action on this item is still being sent: wait for its answer, then go on."
    )
    expect(page.locator("#review-item")).not_to_have_attribute("data-claim", first)

    # the decision's answer stands, with its Undo: nothing skipped it meanwhile
    expect(page.locator("#review-flash")).to_contain_text(f"{first} marked not stated")
    expect(page.locator("#btn-undo-previous")).to_be_visible()
    sent = page.evaluate("window.__sent")
    assert len(sent) == 1 and sent[0].endswith("/decide/")
    assert _decided(first) == ["not_stated"]
    page.keyboard.press("j")  # once the answer came, the next action goes
    expect(page.locator("#review-flash")).to_contain_text("Skipped")


def test_a_bulk_confirmation_clicked_twice_is_sent_once(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("bulk-twice")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    claims = [queue_claim(source, "abstained", text=f"Abstained claim {i}.") for i in range(2)]
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/")
    for claim in claims:
        page.locator(f'input[name=claims][value="{claim.public_id}"]').check()
    page.select_option("#bulk-action", "exclude")
    page.fill("#bulk-reason", "duplicates")
    page.click("#bulk-form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Confirm: Exclude 2 claims")

    held = []  # the confirmation's POSTs, held while the button is clicked again
    page.route(
        "**/review/bulk/**",
        lambda route, request: held.append(route) if request.method == "POST" else route.fallback(),
    )
    box = page.locator("form button.primary").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    for _ in range(200):  # until the first POST is held
        if held:
            break
        page.wait_for_timeout(25)
    page.mouse.click(x, y)
    page.keyboard.press("Enter")  # the button keeps the focus: Enter sends it too
    page.wait_for_timeout(300)  # let a second POST, if any, reach the route
    posts = len(held)
    page.unroute("**/review/bulk/**")
    for route in held:
        with contextlib.suppress(PlaywrightError):  # one the browser gave up for a later one
            route.continue_()

    assert posts == 1
    expect(page.locator("#messages-status")).to_have_text("Excluded 2 claims.")
    assert Claim.objects.filter(workspace=workspace).exclude(exclusion_reason="").count() == 2
