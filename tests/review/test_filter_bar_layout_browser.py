"""Chromium lays out the queue's filter bar with fields in error as without: an error
wraps within its field (no wider field, no page wider than the screen) and the fields
of a row still line up, on a desktop and on a phone."""

from __future__ import annotations

import pytest

from tests.browser import conftest as browser_conftest
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim

# Chromium as the browser tests launch it (their conftest's fixture, which this
# directory does not see).
chromium_browser = browser_conftest.chromium_browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each field: its name, its box, its control's box, its error's box (None without one).
_FIELDS_JS = """() => [...document.querySelectorAll('#queue-filter .review-filter')].map(f => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
  const control = f.querySelector('input, select, button');
  const error = f.querySelector('.form-error');
  return {name: control.name || 'apply', field: box(f), control: box(control),
          error: error ? box(error) : null};
})"""


def _fields(page, url: str, narrow: bool) -> dict[str, dict]:
    page.goto(url)
    if narrow:  # the bar folds into a <details> on a phone
        page.evaluate("document.getElementById('filter-details').open = true")
    fields = {f["name"]: f for f in page.evaluate(_FIELDS_JS)}
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert scroll <= inner, f"the page scrolls sideways ({scroll} > {inner})"
    return fields


@pytest.mark.parametrize("width", [1280, 390])
def test_a_fields_error_neither_widens_it_nor_breaks_its_row(chromium_browser, live_server, width):
    workspace = make_workspace("layout")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    queue_claim(make_source(workspace), "contradicted")
    context = chromium_browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        browser_conftest.login_browser(page, live_server, reviewer)
        base = f"{live_server.url}/review/"
        valid = _fields(page, f"{base}?ingest_job=12&confidence_min=50", width < 700)
        invalid = _fields(page, f"{base}?ingest_job=1.5&confidence_min=NaN", width < 700)
    finally:
        context.close()

    for name in ("ingest_job", "confidence_min"):
        field, error = invalid[name]["field"], invalid[name]["error"]
        assert error is not None, name
        # as wide as without the error, the error within it
        assert abs(field["width"] - valid[name]["field"]["width"]) <= 1, (name, width)
        assert field["left"] - 1 <= error["left"] and error["right"] <= field["right"] + 1
        # the error sits above the control, not beside it or over it
        assert error["bottom"] <= invalid[name]["control"]["top"] + 1, (name, width)
    # the fields of a row line up by their controls' bottoms, error or not
    for name, field in invalid.items():
        if name == "apply":
            continue
        row = [
            other
            for other in invalid.values()
            if other["name"] != "apply"
            and other["field"]["top"] < field["field"]["bottom"]
            and field["field"]["top"] < other["field"]["bottom"]
        ]
        bottoms = [other["control"]["bottom"] for other in row]
        assert max(bottoms) - min(bottoms) <= 4, (name, width, bottoms)
