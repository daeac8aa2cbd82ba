"""Chromium: a form refused for a NUL character (``verifier.input_guard``) loses nothing
that was typed — the 400 page's "Go back to the form" steps back to the filled-in form,
and a refused htmx form says in words what was refused and leaves the input where it is."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import MemoryCheck, Verdict

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_going_back_from_the_400_page_finds_the_form_as_it_was_typed(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("nul-back")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="admin"))
    page.goto(f"{live_server.url}/audit/memory/")
    page.fill("#id_agent", "agent\x00x")
    page.fill("#id_message", "I said the harbour wall was rebuilt.")
    page.locator("main form button[type=submit]").first.click()

    expect(page.locator("h1")).to_have_text("Bad request")
    expect(page.locator("#refusal-message")).to_contain_text(
        "The form field “agent” contains a NUL character at position 5"
    )
    page.locator("#error-back").click()
    expect(page).to_have_url(f"{live_server.url}/audit/memory/")
    expect(page.locator("#id_message")).to_have_value("I said the harbour wall was rebuilt.")
    expect(page.locator("#id_agent")).to_have_value("agent\x00x")
    assert not MemoryCheck.objects.exists()


def test_a_refused_htmx_form_says_what_was_refused_and_keeps_the_input(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("nul-htmx")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace, ref="source:plain"), "abstained")
    decisions = Verdict.objects.count()
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    page.fill("#decision-note", "pasted\x00note")
    page.locator("#btn-supported").click()

    said = page.locator("#request-error-text")
    expect(said).to_contain_text("The form field “note” contains a NUL character at position 6")
    expect(said).to_contain_text("what you typed is still on this page")
    expect(page.locator("#decision-note")).to_have_value("pasted\x00note")
    assert Verdict.objects.count() == decisions
