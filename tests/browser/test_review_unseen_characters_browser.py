"""Chromium: the review pane shows an invisible or reordering character by its code
point, never obeyed (a claim stored as "\u202e001$ diap" read "paid $100" in the item's
heading), and a span selected in the pane past such characters still gets the code-point
offsets of the stored text."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.text.sentences import sentence_spans

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SOURCE_TEXT = (
    "Ledger \u202e001$ diap\u202c on Monday, a\u200bsays the clerk. "
    "The delta gains land in wet years. Salt marsh grasses trap silt."
)


def test_the_pane_marks_unseen_characters_and_keeps_code_point_offsets(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("review-unseen")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:ledger", text=SOURCE_TEXT)
    claim = queue_claim(source, "no_evidence", text="The client \u202e001$ diap\u202c on Monday.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    title = page.locator("#claim-title")
    expect(title.locator('.unseen-char[data-char="U+202E"]')).to_have_count(1)
    assert title.evaluate("e => e.textContent") == claim.text  # the stored text, exactly
    pane = page.locator("#source-text")
    for code in ("U+202E", "U+202C", "U+200B"):
        expect(pane.locator(f'.unseen-char[data-char="{code}"]')).to_have_count(1)
    assert pane.evaluate("e => e.textContent") == SOURCE_TEXT

    pane.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # the second sentence, after the marked characters
    start, end = sentence_spans(SOURCE_TEXT)[1]
    assert (
        int(page.locator("#span-start").input_value()),
        int(page.locator("#span-end").input_value()),
        page.locator("#span-text").input_value(),
    ) == (start, end, SOURCE_TEXT[start:end])
