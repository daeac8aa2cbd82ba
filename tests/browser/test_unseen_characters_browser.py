"""In the browser, a claim or span holding a bidirectional override reads in its stored
order with the override shown by its code point (``The client ⟦U+202E⟧001$ diap``, never
"The client paid $100"), while the DOM text of the claim and of the highlight stays the
stored text exactly; a span cut by an overlapping one is labelled "focused" once."""

from __future__ import annotations

import pytest

from tests.browser.conftest import login_browser
from tests.factories import make_binding, make_claim, make_source, make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RLO, PDF = "\u202e", "\u202c"
TEXT = f"Invoice 7: the client {RLO}001$ diap{PDF} on Monday. Isolates \u2066abc\u2069 close."
QUOTE = f"{RLO}001$ diap{PDF}"
CLAIM = f"The client {RLO}001$ diap{PDF} on Monday."

# Where "0" of "001$" and "p" of "diap" are drawn, left to right, in the element's text.
DRAWN_ORDER = """e => {
  const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode())) {
    const at = node.data.indexOf("001$ diap");
    if (at === -1) continue;
    const x = i => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                     return r.getBoundingClientRect().left; };
    return [x(at), x(at + 8)];
  }
  return null;
}"""


def span_url(binding) -> str:
    source_id = binding.source_version.source_id
    return f"/audit/sources/{source_id}/?span={binding.start}-{binding.end}#seg-{binding.start}"


def test_an_override_in_a_claim_and_its_span_is_shown_not_obeyed(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-unseen")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    source = make_source(workspace, ref="source:invoice", text=TEXT)
    claim = make_claim(source, CLAIM)
    binding = make_binding(claim, QUOTE)
    login_browser(page, live_server, auditor)

    page.goto(f"{live_server.url}/audit/claims/{claim.public_id}/")
    heading = page.locator("h1")
    assert heading.evaluate("e => e.textContent") == CLAIM
    zero, p = heading.evaluate(DRAWN_ORDER)
    assert zero < p  # "001$ diap" as stored, not reversed into "paid $100"
    label = "e => getComputedStyle(e.querySelector('.unseen-char'), '::before').content"
    assert heading.evaluate(label) == '"U+202E"'
    mark = page.locator("#evidence-mark")
    assert mark.evaluate("e => e.textContent") == QUOTE
    zero, p = mark.evaluate(DRAWN_ORDER)
    assert zero < p
    assert page.locator("blockquote.span-context").evaluate("e => e.textContent") == TEXT

    page.goto(f"{live_server.url}{span_url(binding)}")
    focused = page.locator("#source-text mark.span.focus")
    assert focused.evaluate("e => e.textContent") == TEXT[binding.start : binding.end]
    zero, p = focused.evaluate(DRAWN_ORDER)
    assert zero < p
    assert page.locator("#source-text").evaluate("e => e.textContent") == TEXT
    listed = page.locator("#span-claims a[href*='/audit/claims/']").first
    assert listed.evaluate("e => e.textContent") == CLAIM


def test_a_span_cut_by_an_overlapping_one_is_labelled_focused_once(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-focus-once")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    text = "Line one is here.\r\nLine two said 42 ships.\rLine three said 43 boats.\r\n"
    source = make_source(workspace, ref="source:lines", text=text)
    first = make_binding(make_claim(source, "Two lines."), "Line one is here.\r\nLine two")
    focused = make_binding(
        make_claim(source, "Ships and boats."), "Line two said 42 ships.\rLine three said 43 boats."
    )
    assert first.end > focused.start  # they overlap: the focused span is two highlights
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}{span_url(focused)}")
    marks = page.locator("#source-text mark.span.focus")
    assert marks.count() == 2
    assert "".join(marks.all_text_contents()) == text[focused.start : focused.end]
    labels = marks.evaluate_all("ms => ms.map(m => getComputedStyle(m, '::before').content)")
    assert labels == ['"▶ focused "', "none"]
    # the lone carriage return is kept, and shown
    cr = page.locator("#source-text .unseen-char[data-char='U+000D']")
    assert cr.count() == 1
    assert cr.evaluate("e => e.textContent") == "\r"
