"""Chromium: what issue 39 (points 1, 3 and 5) says a person saw, and now does not.

- A new version uploaded on /ingest/: the old claims are in the queue's "stale source"
  chip at once, every one of them (it counted 1 of 3, as each was opened).
- A reviewer's decision takes the item out of the queue; "Start reviewing" does not serve
  it again; reading an item leases nothing.
- A memory check in the console leaves a trace; the Traces page shows its steps as a
  tree with the time of each.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from review.models import ReviewLease
from tests.browser.conftest import login_browser
from tests.factories import DEFAULT_TEXT, make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from tests.verifier.services.test_source_supersede import supported

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_new_version_puts_every_old_claim_under_stale_source(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-stale-source")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:marrow_delta")
    for i in range(3):
        supported(source, f"Sediment settles where the current slows ({i}).")
    login_browser(page, live_server, rita)

    page.goto(f"{live_server.url}/ingest/")
    page.locator("#id_title").fill("Marrow delta")  # names source:marrow_delta
    page.locator("#id_text").fill(DEFAULT_TEXT.replace("Sediment settles", "Silt settles"))
    # Celery runs eagerly in tests: the job runs inside this request (models load cold).
    page.get_by_role("button", name="Start ingest job").click(timeout=120_000)
    page.wait_for_url("**/ingest/jobs/*/", timeout=120_000)

    page.goto(f"{live_server.url}/review/")
    chip = page.locator('a[data-reason="stale_source"] .n')
    expect(chip).to_have_text("3")
    page.goto(f"{live_server.url}/audit/claims/?state=supported")
    expect(page.get_by_text("Sediment settles where the current slows (")).to_have_count(0)
    page.goto(f"{live_server.url}/audit/claims/?state=unverified")
    expect(page.get_by_text("Sediment settles where the current slows (")).to_have_count(3)


def test_a_decided_item_leaves_the_queue_and_is_not_served_again(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-drain")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace)
    contested = queue_claim(source, "contradicted", text="A contested claim.")
    other = queue_claim(source, "abstained", text="Another claim.")
    login_browser(page, live_server, rita)

    page.goto(f"{live_server.url}/review/item/{contested.public_id}/")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", contested.public_id)
    assert not ReviewLease.objects.exists()  # reading it leased nothing
    page.keyboard.press("c")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", other.public_id)

    page.goto(f"{live_server.url}/review/")
    expect(page.locator(f'a[href^="/review/item/{other.public_id}/"]').first).to_be_visible()
    expect(page.locator(f'a[href^="/review/item/{contested.public_id}/"]')).to_have_count(0)
    page.get_by_role("button", name="Start reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", other.public_id)


def test_a_memory_check_shows_on_the_traces_page_as_a_timed_tree(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-traces")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    login_browser(page, live_server, rita)
    turns = [
        {"speaker": "user", "text": "Can you get me the report?"},
        {"speaker": "agent", "text": "I'll try to send the draft this week."},
    ]

    page.goto(f"{live_server.url}/audit/memory/")
    page.locator("#id_agent").fill("agent")
    page.locator("#id_message").fill('I said "I\'ll try to send the draft this week."')
    page.locator("#id_transcript").fill("\n".join(json.dumps(t) for t in turns))
    page.get_by_role("button", name="Verify").click()
    page.wait_for_url("**/audit/memory/checks/*/")

    page.goto(f"{live_server.url}/audit/traces/")
    page.locator("table a").first.click()
    page.wait_for_url("**/audit/traces/*/")
    steps = page.locator("#trace-steps > ol > li > .step-name")
    expect(steps).to_have_text(["Import the transcript", "Verify", "Store the results"])
    expect(page.locator("#trace-steps .step-ms").first).to_have_text(
        re.compile(r"^[\d.]+ (ms|s|min)")
    )
    expect(page.locator("#trace-judge")).to_contain_text("Model")
