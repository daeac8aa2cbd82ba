"""A screen-reader user hears where an evidence span starts and ends, on the claim page
and the source page, while the quoted text itself stays exactly the source's (copying it
and its offsets are unchanged): the words live outside the blockquote and the text pane."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_binding, make_claim, make_source, make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = (
    "Field notes 😀 from the Marrow, cafe\u0301 owners say.\r\n"
    "Sediment settles where the current slows near the old harbour wall every spring. "
    "Salt marsh grasses trap silt."
)
QUOTE = "Sediment settles where the current slows near the old harbour wall every spring."
SHORT = "Salt marsh grasses trap silt."


def test_the_claim_pages_span_is_announced_in_words_and_the_quote_is_exact(
    browser_page, live_server
):
    page = browser_page
    workspace = make_workspace("browser-span-words")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    source = make_source(workspace, ref="source:field_notes", text=TEXT)
    claim = make_claim(source, "Sediment settles where the current slows.")
    binding = make_binding(claim, QUOTE)
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}/audit/claims/{claim.public_id}/")

    quote = page.locator("blockquote.span-context")
    # nothing added inside the quoted text: it is the source's, character for character
    assert quote.evaluate("e => e.textContent") == TEXT
    mark = quote.locator("mark")
    assert mark.evaluate("e => e.textContent") == QUOTE
    start = binding.start
    # the mark starts at the binding's code-point offset (the emoji is two UTF-16 units)
    before_mark = (
        "e => Array.from(e.textContent.slice(0, "
        "e.textContent.indexOf(e.querySelector('mark').textContent))).length"
    )
    assert quote.evaluate(before_mark) == start
    words = (
        f"The evidence span, characters [{start}, {binding.end}), is highlighted; it starts "
        "“Sediment settles where the current …” and ends “… old harbour wall every spring.”."
    )
    expect(quote).to_have_accessible_description(
        "Quoted next: the text of source:field_notes v1 around the evidence. "
        + words
        + " The text before and after it is context."
    )
    expect(page.locator("#span-context-words")).to_have_class("visually-hidden")
    expect(mark).to_have_accessible_description(
        f"The evidence span, characters [{start}, {binding.end}), from “Sediment settles where "
        "the current …” to “… old harbour wall every spring.”."
    )


def test_the_source_pages_highlights_are_described_and_the_focused_one_in_words(
    browser_page, live_server
):
    page = browser_page
    workspace = make_workspace("browser-span-words-src")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    source = make_source(workspace, ref="source:field_notes", text=TEXT)
    long = make_binding(make_claim(source, "Sediment settles."), QUOTE)
    make_binding(make_claim(source, "Grasses trap silt."), SHORT)
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}/audit/sources/{source.pk}/?span={long.start}-{long.end}")

    pane = page.locator("#source-text")
    # the words are outside the pane: its text is the source's, character for character
    assert pane.evaluate("e => e.textContent") == TEXT
    expect(pane).to_have_accessible_description(
        f"The text of v1, characters 0 to {len(TEXT)}, follows. Each bound span is "
        "highlighted from its first character to its last; a highlight is described by its "
        "characters [start, end), the states of its claims and its number of bindings; "
        "press Enter on one to list its claims."
    )
    start = TEXT.index(SHORT)
    expect(pane.locator(f'mark[data-start="{start}"]')).to_have_accessible_description(
        f"[{start}, {len(TEXT)}) · unverified · 1 binding; press Enter to list the claims"
    )
    expect(pane.locator(f'mark[data-start="{long.start}"]')).to_have_accessible_description(
        f"Highlighted span, characters [{long.start}, {long.end}), from “Sediment settles "
        "where the current …” to “… old harbour wall every spring.”; claims unverified; "
        "1 binding; focused."
    )
