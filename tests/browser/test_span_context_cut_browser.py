"""Chromium: the "…" where the claim page's quoted context is cut reads as a muted mark
beside the quote, not as part of it: a selection across the quote leaves it out, so a
copied quote holds the source's characters only."""

from __future__ import annotations

import pytest

from audit.selectors.claim_page import SPAN_CONTEXT_CHARS
from tests.browser.conftest import login_browser
from tests.factories import make_binding, make_claim, make_source, make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUOTE = "Sediment settles where the current slows near the old harbour wall."
FILLER = "Tide tables were kept by the harbour master for every season of the year. "

STYLE = """e => {
  const s = getComputedStyle(e);
  const muted = getComputedStyle(document.documentElement).getPropertyValue("--muted").trim();
  const probe = document.createElement("span");
  probe.style.color = muted;
  document.body.appendChild(probe);
  const mutedColor = getComputedStyle(probe).color;
  probe.remove();
  return {userSelect: s.userSelect, color: s.color, mutedColor: mutedColor,
          hidden: e.getAttribute("aria-hidden")};
}"""

SELECT_ALL_OF_THE_EVIDENCE = """() => {
  const range = document.createRange();
  range.setStartBefore(document.getElementById("span-context-cut-before"));
  range.setEndAfter(document.getElementById("span-context-cut-after"));
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return selection.toString();
}"""


def test_the_cut_marks_are_muted_and_left_out_of_a_copied_quote(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-span-cut")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    text = FILLER * 8 + QUOTE + " " + FILLER * 8
    assert text.index(QUOTE) > SPAN_CONTEXT_CHARS
    source = make_source(workspace, ref="source:harbour_log", text=text)
    claim = make_claim(source, "Sediment settles near the harbour wall.")
    make_binding(claim, QUOTE)
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}/audit/claims/{claim.public_id}/")

    for mark in ("#span-context-cut-before", "#span-context-cut-after"):
        style = page.locator(mark).evaluate(STYLE)
        assert style["userSelect"] == "none", style
        assert style["color"] == style["mutedColor"], style
        assert style["hidden"] == "true"
    copied = page.evaluate(SELECT_ALL_OF_THE_EVIDENCE)
    assert QUOTE in copied
    assert "…" not in copied
    # the marks stand next to the quote: no paragraph's gap between them and it
    gaps = page.evaluate(
        """() => {
          const q = document.querySelector("blockquote.span-context").getBoundingClientRect();
          const b = document.getElementById("span-context-cut-before").getBoundingClientRect();
          const a = document.getElementById("span-context-cut-after").getBoundingClientRect();
          return [q.top - b.bottom, a.top - q.bottom];
        }"""
    )
    assert all(0 <= gap < 8 for gap in gaps), gaps
