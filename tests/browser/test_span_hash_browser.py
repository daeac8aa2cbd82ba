"""A source page's #start-end permalink shows and announces only a span that is bound in
the version: a range that merely holds highlights is no span, and says so."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_binding, make_claim, make_source, make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEXT = (
    "The river floods each spring. Sediment settles where the current slows. "
    "Salt marsh grasses trap silt at high tide. The delta gains land in wet years."
)
FIRST = "Sediment settles where the current slows."
SECOND = "Salt marsh grasses trap silt at high tide."


def test_a_hash_that_names_no_bound_span_focuses_and_announces_nothing(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("browser-span-hash")
    auditor = make_user("audrey", workspace=workspace, role="auditor")
    source = make_source(workspace, ref="source:river", text=TEXT)
    make_binding(make_claim(source, "Sediment settles in slow water."), FIRST)
    make_binding(make_claim(source, "Grasses trap silt."), SECOND)
    first = (TEXT.index(FIRST), TEXT.index(FIRST) + len(FIRST))
    second_end = TEXT.index(SECOND) + len(SECOND)
    login_browser(page, live_server, auditor)
    status = page.locator("#span-filter-status")

    # a range around both spans, bound to neither
    page.goto(f"{live_server.url}/audit/sources/{source.pk}/#{first[0]}-{second_end}")
    expect(status).to_have_text(f"No bound span at [{first[0]}, {second_end}) in this version.")
    expect(page.locator("#source-text mark.span.focus")).to_have_count(0)
    expect(page.locator("#source-text mark[aria-current]")).to_have_count(0)

    # the bound span itself is shown and announced
    page.evaluate(f"window.location.hash = '#{first[0]}-{first[1]}'")
    expect(status).to_have_text(f"Showing the span [{first[0]}, {first[1]}).")
    focused = page.locator("#source-text mark.span.focus")
    expect(focused).to_have_count(1)
    expect(focused).to_have_attribute("data-start", str(first[0]))
