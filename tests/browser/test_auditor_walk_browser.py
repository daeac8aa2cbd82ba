"""What an auditor walking the console meets: the claim list's export line keeps its
audit-pack button in the one sentence that offers every export; a highlight on the source
page whose claims the list below does not show (another page, another state) still lists
them when selected."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.audit.conftest import judge
from tests.browser.conftest import login_browser
from tests.factories import make_binding, make_claim, make_source, make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUOTE = "Sediment settles where the current slows."
OTHER = "Salt marsh grasses trap silt at high tide."


def test_the_claim_lists_exports_stay_one_sentence_with_the_pack_button_inside(
    browser_page, live_server
):
    """The pack button is a form: inside a <p> the parser closed the paragraph before it,
    so "or as a signed" ended one block and "Audit pack · what the codes mean" stood
    outside the exports line (and outside its styling)."""
    page = browser_page
    workspace = make_workspace("browser-walk-exports")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    source = make_source(workspace)
    make_binding(make_claim(source, QUOTE), QUOTE)
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}/audit/claims/?state=unverified")

    exports = page.locator(".exports")
    expect(exports).to_have_count(1)
    expect(exports.get_by_role("button", name="Audit pack")).to_have_count(1)
    expect(exports.get_by_role("link", name="what the codes mean")).to_have_count(1)
    expect(exports.get_by_role("link", name="JSONL")).to_have_attribute(
        "href", "/audit/claims/export.jsonl?state=unverified"
    )
    # the pack carries the list's filter
    form = exports.locator("form")
    expect(form.locator('input[name="scope"]')).to_have_value("claims")
    expect(form.locator('input[name="state"]')).to_have_value("unverified")
    words = " ".join(exports.inner_text().split())
    assert words.endswith("or as a signed Audit pack · what the codes mean"), words


def test_selecting_a_highlight_whose_claims_are_filtered_out_opens_them(browser_page, live_server):
    """With the list filtered to Unverified, Enter on a supported highlight hid every row
    and said "1 binding at [x, y)." over an empty list: now it opens the span, whose
    page pins its claims, with the highlight focused."""
    page = browser_page
    workspace = make_workspace("browser-walk-filtered")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    source = make_source(workspace)
    supported = make_claim(source, QUOTE)
    judge(supported, binding=make_binding(supported, QUOTE))
    assert supported.state == "supported"
    make_binding(make_claim(source, "Grasses trap silt."), OTHER)
    start = source.versions.get().text.index(QUOTE)
    end = start + len(QUOTE)
    login_browser(page, live_server, auditor)
    page.goto(f"{live_server.url}/audit/sources/{source.pk}/?state=unverified")
    expect(page.locator("#span-claims li:visible")).to_have_count(1)

    page.locator(f"#seg-{start}").focus()
    page.keyboard.press("Enter")

    page.wait_for_url(f"**/audit/sources/{source.pk}/?span={start}-{end}#seg-{start}")
    expect(page.locator("#pinned-claims")).to_contain_text(QUOTE)
    expect(page.locator(f"#seg-{start}")).to_be_focused()
