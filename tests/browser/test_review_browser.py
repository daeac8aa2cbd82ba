"""Chromium works the review queue: chip filter, start, mouse-selected span, `s`, help."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Emoji (two UTF-16 units each, ZWJ sequences of several code points) and combining
# marks before and inside the span, so UTF-16 and code-point offsets disagree.
SOURCE_TEXT = (
    "Field notes 😀🌊 from the Marrow: cafe\u0301 owners say the 👩\u200d👩\u200d👧 family "
    "watched na\u0303o silt pile up. The delta 🌱 gains land in we\u0301t years. "
    "Salt marsh grasses trap silt."
)
QUOTE = "delta 🌱 gains land in we\u0301t"


def _select_with_mouse(page, text: str) -> None:
    """Drag the mouse over ``text`` in the source pane (located by its UTF-16 offset)."""
    boxes = page.evaluate(
        """(needle) => {
          const pane = document.getElementById("source-text");
          const walker = document.createTreeWalker(pane, NodeFilter.SHOW_TEXT);
          let node;
          while ((node = walker.nextNode())) {
            const at = node.data.indexOf(needle);
            if (at < 0) continue;
            const box = (from, to) => {
              const r = document.createRange();
              r.setStart(node, from); r.setEnd(node, to);
              const b = r.getClientRects()[0];
              return {left: b.left, right: b.right, top: b.top, bottom: b.bottom};
            };
            return {first: box(at, at + 1), last: box(at + needle.length - 1, at + needle.length)};
          }
          return null;
        }""",
        text,
    )
    assert boxes, f"{text!r} not found in the source pane"
    first, last = boxes["first"], boxes["last"]
    page.mouse.move(first["left"] + 1, (first["top"] + first["bottom"]) / 2)
    page.mouse.down()
    page.mouse.move(last["right"] - 1, (last["top"] + last["bottom"]) / 2, steps=8)
    page.mouse.up()


def test_queue_chip_start_select_span_press_s_next_loads(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    emoji_source = make_source(workspace, ref="source:field_notes", text=SOURCE_TEXT)
    plain_source = make_source(workspace, ref="source:plain")
    gap = queue_claim(plain_source, "coverage_gap", text="A riskier coverage gap.")
    first = queue_claim(emoji_source, "no_evidence", text="The delta gains land in wet years.")
    second = queue_claim(plain_source, "no_evidence", text="Marsh grasses trap silt.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    expect(page.locator(f'tr[data-claim="{gap.public_id}"]')).to_be_visible()
    chip = page.locator('a[data-reason="no_evidence"]')
    expect(chip).to_have_attribute("aria-current", "false")
    chip.click()
    expect(page).to_have_url(re.compile(r"reason=no_evidence"))
    expect(page.locator('a[data-reason="no_evidence"]')).to_have_attribute("aria-current", "true")
    expect(page.locator(f'tr[data-claim="{gap.public_id}"]')).to_have_count(0)
    expect(page.locator("tr[data-claim]")).to_have_count(2)

    page.get_by_role("button", name="Start reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    expect(page).to_have_url(re.compile(re.escape(first.public_id)))

    _select_with_mouse(page, QUOTE)
    expect(page.locator("#selection-readout")).to_contain_text("Selected span")
    start = SOURCE_TEXT.index(QUOTE)
    assert page.locator("#span-start").input_value() == str(start)
    assert page.locator("#span-end").input_value() == str(start + len(QUOTE))
    assert page.locator("#span-text").input_value() == QUOTE

    page.keyboard.press("s")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", second.public_id)
    expect(page).to_have_url(re.compile(re.escape(second.public_id) + r"/\?.*reason=no_evidence"))
    expect(page.locator("#review-item .flash")).to_contain_text("marked supported")
    expect(page).to_have_title(f"Review {second.public_id} · Spanproof")  # not the last one's

    first.refresh_from_db()
    binding = first.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (start, start + len(QUOTE))
    assert binding.quote == QUOTE and binding.match == "exact" and binding.bound_by == "reviewer"
    assert first.state == "supported"
    assert first.verdicts.filter(reviewer=reviewer).count() == 1

    page.go_back()
    expect(page).to_have_url(re.compile(re.escape(first.public_id)))


def test_keyboard_help_overlay_opens_and_escape_closes(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-help")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    claim = queue_claim(make_source(workspace), "abstained")
    login_browser(page, live_server, reviewer)
    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_hidden()
    page.keyboard.press("?")
    expect(dialog).to_be_visible()
    expect(page.locator("#help-dialog button")).to_be_focused()
    page.keyboard.press("s")  # shortcuts are off while a dialog is open
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    claim.refresh_from_db()
    assert claim.state == "unverified"
    page.keyboard.press("x")
    expect(page.get_by_role("dialog", name="Exclude this claim")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="Exclude this claim")).to_be_hidden()


def test_long_source_window_binds_the_selected_span_at_absolute_offsets(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-long")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    filler = "The river keeps moving through the plain. " * 1500  # 63 KB
    text = filler + SOURCE_TEXT + " " + filler
    source = make_source(workspace, ref="source:long_field_notes", text=text)
    claim = queue_claim(source, "no_evidence", text="The delta gains land in wet years.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    pane = page.locator("#source-text")
    offset = int(pane.get_attribute("data-offset"))
    assert len(pane.inner_text()) < 10_000  # a window, not the 127 KB text
    # No bound span: the window opens at the start; move to the text with the quote.
    while QUOTE not in pane.inner_text():
        page.locator("#text-later").click()
        expect(pane).not_to_have_attribute("data-offset", str(offset))
        offset = int(pane.get_attribute("data-offset"))
    page.evaluate(
        """(needle) => {
          const pane = document.getElementById("source-text");
          const node = pane.firstChild, at = node.data.indexOf(needle);
          const r = document.createRange();
          r.setStart(node, at); r.setEnd(node, at + needle.length);
          pane.scrollTop += r.getBoundingClientRect().top - pane.getBoundingClientRect().top - 40;
          window.scrollTo(0, window.scrollY + r.getBoundingClientRect().top - 200);
        }""",
        QUOTE,
    )
    _select_with_mouse(page, QUOTE)
    start = text.index(QUOTE)
    assert page.locator("#span-start").input_value() == str(start)
    assert page.locator("#span-text").input_value() == QUOTE
    page.keyboard.press("s")
    expect(page.locator("#review-item .flash, #main .messages")).to_contain_text("supported")
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (start, start + len(QUOTE))


def test_a_source_with_windows_line_ends_binds_the_selection_at_its_stored_offsets(
    browser_page, live_server
):
    # An HTML parser reads CR LF as LF: unless the page keeps the CRs, every line end
    # before the selection moves its offsets by one, and the server refuses the span.
    page = browser_page
    workspace = make_workspace("browser-crlf")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    text = (
        "Minutes of the board.\r\nItem one: the budget.\r\nThe delta gains land in wet years.\r\n"
    )
    quote = "delta gains land in wet years"
    source = make_source(workspace, ref="source:crlf_minutes", text=text)
    claim = queue_claim(source, "no_evidence", text="The delta gains land in wet years.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/item/{claim.public_id}/")
    _select_with_mouse(page, quote)
    start = text.index(quote)
    assert page.locator("#span-start").input_value() == str(start)
    page.keyboard.press("s")
    expect(page.locator("#review-item .flash, #main .messages")).to_contain_text("supported")
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end, binding.quote) == (start, start + len(quote), quote)


def _touch_inline_styles(page) -> int:
    """What a highlighter, an extension or any script using ``element.style`` does to the
    item (the CSP allows CSSOM): it sets a style property and removes it again, which
    leaves an empty ``style=""`` attribute behind. Returns how many elements carry one."""
    return page.evaluate(
        """() => {
          document.querySelectorAll("#review-item [id]").forEach((el) => {
            el.style.outline = "2px solid";
            el.style.removeProperty("outline");
          });
          return document.querySelectorAll("#review-item [style]").length;
        }"""
    )


def test_decision_and_undo_in_the_queue_break_no_csp_rule_and_the_judge_decides_again(
    browser_page, live_server
):
    """`s` then `u` from the queue: no Content-Security-Policy error in the console, even
    with empty style attributes on the item's elements (htmx used to re-apply them on
    settle, one blocked inline style each), and after the undo the item says why by the
    judge's verdict that decides again, not by the withdrawn decision."""
    page = browser_page
    workspace = make_workspace("browser-undo")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    first = queue_claim(source, "contradicted", text="The first claim.")
    second = queue_claim(source, "contradicted", text="The second claim.")
    csp_errors: list[str] = []
    page.on(
        "console",
        lambda msg: csp_errors.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    page.get_by_role("button", name="Start reviewing").click()
    item = page.locator("#review-item")
    expect(item).to_have_attribute("data-claim", first.public_id)
    assert _touch_inline_styles(page) > 0
    page.keyboard.press("s")
    expect(item).to_have_attribute("data-claim", second.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text("marked supported")
    assert _touch_inline_styles(page) > 0
    page.keyboard.press("u")
    expect(item).to_have_attribute("data-claim", first.public_id)
    expect(page.locator("#review-item .flash")).to_contain_text("Undone")
    page.wait_for_load_state("networkidle")

    first.refresh_from_db()
    assert (first.state, first.state_reason) == ("contradicted", "contradicted")
    decision = first.verdicts.get(label="entailed")
    why = page.locator("#why-queued")
    expect(why).to_contain_text("90\u00a0% sure the span contradicts the claim")
    expect(why).not_to_contain_text("decided by a person")
    expect(why).not_to_contain_text("withdraws")
    # The undo names the withdrawn decision as its row reads, not by its verdict id.
    when = timezone.localtime(decision.at).strftime("%Y-%m-%d %H:%M UTC")
    expect(page.locator("table.verdicts")).to_contain_text(
        f"Undo: withdraws rita's decision of {when} (Supports)."
    )
    assert csp_errors == []
