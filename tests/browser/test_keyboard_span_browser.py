"""A keyboard-only reviewer binds a span: in the source pane ↓ / ↑ select a sentence,
Shift+↓ / ↑ extend the selection, Enter uses it, and `s` binds it at the code-point
offsets the mouse path sends (the server checks them the same way)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.text.sentences import sentence_spans

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Emoji and combining marks before the span: UTF-16 and code-point offsets disagree.
SOURCE_TEXT = (
    "Field notes 😀🌊 from the Marrow: cafe\u0301 owners say the 👩\u200d👩\u200d👧 family "
    "watched na\u0303o silt pile up. The delta 🌱 gains land in we\u0301t years. "
    "Salt marsh grasses trap silt."
)


def _span(page) -> tuple[int, int, str]:
    return (
        int(page.locator("#span-start").input_value()),
        int(page.locator("#span-end").input_value()),
        page.locator("#span-text").input_value(),
    )


def test_arrow_keys_select_sentences_and_s_binds_them(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-keys")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:field_notes", text=SOURCE_TEXT)
    claim = queue_claim(source, "no_evidence", text="The delta gains land in wet years.")
    sentences = sentence_spans(SOURCE_TEXT)
    assert len(sentences) == 3
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    pane = page.locator("#source-text")
    expect(pane).to_have_attribute("aria-describedby", "source-keys")
    pane.focus()
    readout = page.locator("#selection-readout")

    page.keyboard.press("ArrowDown")  # the first sentence (nothing bound, nothing selected)
    expect(readout).to_contain_text("Sentence 1 of 3")
    start, end = sentences[0]
    assert _span(page) == (start, end, SOURCE_TEXT[start:end])

    page.keyboard.press("ArrowDown")
    expect(readout).to_contain_text("Sentence 2 of 3")
    page.keyboard.press("Shift+ArrowDown")
    expect(readout).to_contain_text("Sentences 2–3 of 3")
    assert _span(page) == (sentences[1][0], sentences[2][1], SOURCE_TEXT[sentences[1][0] :])
    page.keyboard.press("Shift+ArrowUp")  # shrinks back to the second sentence
    expect(readout).to_contain_text("Sentence 2 of 3")
    start, end = sentences[1]
    assert _span(page) == (start, end, SOURCE_TEXT[start:end])
    assert page.evaluate("window.getSelection().toString()") == SOURCE_TEXT[start:end]
    expect(pane).to_be_focused()  # the keyboard stays in the text

    page.keyboard.press("Enter")
    expect(readout).to_contain_text(f"Span [{start}, {end}) is the one to bind")
    page.keyboard.press("s")
    expect(page.locator("#review-item .flash, #main .messages")).to_contain_text("supported")
    claim.refresh_from_db()
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (start, end)
    assert binding.quote == SOURCE_TEXT[start:end] and binding.bound_by == "reviewer"
    assert claim.state == "supported"


def test_a_long_sources_window_steps_at_absolute_offsets(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-keys-long")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    text = "The river keeps moving through the plain. " * 1500 + SOURCE_TEXT
    source = make_source(workspace, ref="source:long_notes", text=text)
    claim = queue_claim(source, "no_evidence", text="The delta gains land in wet years.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    page.locator("#text-later").click()
    pane = page.locator("#source-text")
    expect(pane).not_to_have_attribute("data-offset", "0")
    offset = int(pane.get_attribute("data-offset"))
    pane.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    expect(page.locator("#selection-readout")).to_contain_text("Sentence 2 of")
    start, end, quote = _span(page)
    assert offset < start < end and quote == text[start:end]
    assert quote == "The river keeps moving through the plain."
    page.keyboard.press("c")
    expect(page.locator("#review-item .flash, #main .messages")).to_contain_text("contradicted")
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (start, end)
