"""Chromium walks the audit console: claim → evidence → highlighted span; rule-set tuning."""

from __future__ import annotations

import os

import pytest

from tests.factories import make_binding, make_claim, make_source, make_user
from verifier.models import RuleSetActivation, Verdict
from verifier.services.claim_state import claim_state_refresh
from verifier.services.ingest_validate import claims_classify

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # set by conftest too

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUOTE = "Sediment settles where the current slows."


def _supported_claim(workspace, text):
    source = make_source(workspace, ref="source:long_delta", text=text)
    claim = make_claim(source, QUOTE)
    binding = make_binding(claim, QUOTE)
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-entailment-v1",
        judge_family="heuristic",
        label="entailed",
        confidence=0.9,
    )
    claim_state_refresh(claim=claim, cause="browser test")
    return claim, binding


def test_claim_evidence_opens_source_with_span_highlighted_and_in_view(
    browser_login, live_server, workspace
):
    from playwright.sync_api import expect

    auditor = make_user("aldo", workspace=workspace, role="auditor")
    filler = "The river keeps moving through the plain. " * 300
    claim, binding = _supported_claim(workspace, filler + QUOTE + " " + filler)
    page = browser_login(auditor)

    page.goto(f"{live_server.url}/audit/claims/{claim.public_id}/")
    expect(page.locator(".badge-pass")).to_have_count(4)  # no trace yet: check 4 is n/a
    expect(page.locator(".badge-fail")).to_have_count(0)
    page.locator("a.evidence-link").first.click()
    sha, start, end = binding.source_version.sha256, binding.start, binding.end
    page.wait_for_url(f"**/v/{sha}?span={start}-{end}#seg-{start}")

    focused = page.locator("mark.span.focus")
    expect(focused).to_have_count(1)
    expect(focused).to_have_text(QUOTE)
    expect(focused).to_be_in_viewport()
    assert page.evaluate("document.activeElement.classList.contains('focus')")

    # click the span → its claims; click a claim's offsets → the span scrolls back into view
    page.locator("#source-text").evaluate("el => el.scrollTop = 0")
    page.locator(f"#binding-{binding.pk} a.show-span").click()
    expect(focused).to_be_in_viewport()
    focused.click()
    expect(page.locator(f"#binding-{binding.pk}")).to_be_focused()
    expect(page.locator("#span-filter-status")).to_contain_text("1 binding")


def test_long_source_permalinks_focus_a_span_outside_the_first_window(
    browser_login, live_server, workspace
):
    """``#seg-<start>`` and ``#start-end`` (old permalinks) still focus a span far into
    a long source: the page asks the server for the window around it."""
    from playwright.sync_api import expect

    auditor = make_user("aldo", workspace=workspace, role="auditor")
    filler = "The river keeps moving through the plain. " * 1000  # 42 KB before the span
    claim, binding = _supported_claim(workspace, filler + QUOTE + " " + filler)
    page = browser_login(auditor)
    base = f"{live_server.url}/audit/sources/{claim.source_id}/v/{binding.source_version.sha256}"
    for anchor in (f"#seg-{binding.start}", f"#{binding.start}-{binding.end}"):
        page.goto(base + anchor)
        page.wait_for_url(f"**span={binding.start}*")
        focused = page.locator("#source-text mark.span.focus")
        expect(focused).to_have_count(1)
        expect(focused).to_have_text(QUOTE)
        expect(focused).to_be_in_viewport()
        expect(page.locator("#pinned-claims")).to_contain_text(claim.text[:40])


HARBOUR = "The harbour wall was rebuilt in 1998. It is 40 metres high. It is 300 metres long."
HARBOUR_QUOTE = "The harbour wall was rebuilt in 1998. It is 40 metres high."


def test_permalink_keeps_the_whole_span_focused_where_another_span_overlaps_it(
    browser_login, live_server, workspace
):
    """Another claim binds "40" inside the quote: the quote is cut into three segments.
    The claim's permalink (``?span=S-E#seg-S``) keeps all three focused and in view, not
    only the segment its anchor names; the keyboard still reaches and opens each span."""
    from playwright.sync_api import expect

    auditor = make_user("aldo", workspace=workspace, role="auditor")
    source = make_source(workspace, ref="source:harbour", text=HARBOUR)
    claim = make_claim(source, "The harbour wall dates from 1998 and is 40 metres high.")
    binding = make_binding(claim, HARBOUR_QUOTE)
    inner_claim = make_claim(source, "The wall is 40 metres high.")
    inner = make_binding(inner_claim, "40")
    assert binding.start < inner.start < inner.end < binding.end
    page = browser_login(auditor)

    page.goto(f"{live_server.url}/audit/claims/{claim.public_id}/")
    page.locator("a.evidence-link").first.click()
    sha = binding.source_version.sha256
    page.wait_for_url(f"**/v/{sha}?span={binding.start}-{binding.end}#seg-{binding.start}")

    focused = page.locator("#source-text mark.span.focus")
    expect(focused).to_have_count(3)
    assert "".join(focused.all_text_contents()) == HARBOUR_QUOTE
    for i in range(3):
        expect(focused.nth(i)).to_be_in_viewport()
    expect(page.locator(f"#seg-{binding.start}")).to_be_focused()
    expect(page.locator(f"#seg-{binding.start}")).to_have_attribute("aria-current", "location")
    expect(page.locator("#span-filter-status")).to_have_text(
        f"Showing the span [{binding.start}, {binding.end})."
    )

    # the inner claim's offsets focus its one segment; Back to #seg-S: the whole quote again
    page.locator(f"#binding-{inner.pk} a.show-span").click()
    expect(focused).to_have_count(1)
    expect(focused).to_have_text("40")
    page.go_back()
    expect(focused).to_have_count(3)
    assert "".join(focused.all_text_contents()) == HARBOUR_QUOTE

    # keyboard: Tab from the focused segment reaches the next span's segment; Enter lists
    # the claims bound there (both: "40" lies inside the quote)
    page.keyboard.press("Tab")
    expect(page.locator(f"#seg-{inner.start}")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#span-filter-status")).to_contain_text(
        f"2 bindings at [{inner.start}, {inner.end})"
    )
    expect(page.locator(f"#binding-{binding.pk}")).to_be_visible()
    expect(page.locator(f"#binding-{inner.pk}")).to_be_visible()


def test_rule_set_edit_preview_flip_list_then_activate(browser_login, live_server, workspace):
    from playwright.sync_api import expect

    admin = make_user("ada", workspace=workspace, role="admin")
    claim, _ = _supported_claim(workspace, "Intro. " + QUOTE + " Outro.")
    # classed as an ingest job classes it: the preview counts claims with a class
    claims_classify(workspace=workspace, claims=[claim])
    page = browser_login(admin)

    page.goto(f"{live_server.url}/audit/rules/")
    page.get_by_role("link", name="New version from Core v1").click()
    page.get_by_label("Name").fill("Delta strict")
    page.get_by_label("Balanced: supported at ≥").fill("0.99")
    page.get_by_label("balanced: weak at ≥").fill("0.95")
    page.get_by_role("button", name="Preview impact").click()
    flips = page.locator("#flip-list")
    expect(flips).to_contain_text(claim.text)
    expect(page.locator("#impact-result")).to_contain_text("1 of 1 claim would change class")
    assert not RuleSetActivation.objects.exists()

    page.get_by_role("button", name="Save as draft (not active)").click()
    page.wait_for_url("**/audit/rules/*/**")
    expect(page.locator(".messages")).to_contain_text("it is not active")
    assert not RuleSetActivation.objects.exists()
    page.get_by_role("button", name="Activate…").click()
    expect(page.locator("#impact-result")).to_contain_text("1 of 1 claim would change class")
    assert not RuleSetActivation.objects.exists()
    page.get_by_role("button", name="Confirm: activate").click()
    page.wait_for_url("**/audit/rules/")
    expect(page.locator(".messages")).to_contain_text("Activated Delta strict v1")
    activation = RuleSetActivation.objects.get()
    assert activation.activated_by == admin and activation.rule_set.name == "Delta strict"


def test_rule_set_form_keeps_a_running_weight_total(browser_login, live_server, workspace):
    from playwright.sync_api import expect

    admin = make_user("ada", workspace=workspace, role="admin")
    page = browser_login(admin)
    page.goto(f"{live_server.url}/audit/rules/new/")
    total = page.locator("#weight-total")
    expect(total).to_have_text("Weights total: 1.00 ✓")
    weight = page.locator('input[name^="weight_"]').first
    value = float(weight.input_value())
    weight.fill(f"{value + 0.1:.2f}")
    expect(total).to_have_text("Weights total: 1.10 — must be 1.00")
