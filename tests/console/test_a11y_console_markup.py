"""Accessible markup that an axe-core sweep of the console found wrong (WCAG 2.1 A/AA).

Checks on the rendered HTML, so they run without a browser: filter links mark the
current filter with aria-current (aria-pressed belongs to buttons only), a button's
spoken name contains its visible words (label in name, 2.5.3), and a chart with links
in it is not an image (an image's children are hidden from screen readers, yet the
links still take keyboard focus).
"""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.urls import reverse

from tests.audit.test_traces_quality import _report
from tests.review.conftest import queue_claim
from verifier.models import IngestJob

OPEN_TAG = re.compile(r"<(a|button)\b([^>]*)>", re.IGNORECASE)
LABELLED_BUTTON = re.compile(r'<button\b[^>]*aria-label="([^"]*)"[^>]*>([^<]*)</button>')
SVG = re.compile(r"<svg\b([^>]*)>(.*?)</svg>", re.DOTALL)


def _links_with_aria_pressed(html: str) -> list[str]:
    return [
        m.group(0)
        for m in OPEN_TAG.finditer(html)
        if m.group(1).lower() == "a" and "aria-pressed" in m.group(2)
    ]


def test_queue_reason_chips_mark_the_current_filter_with_aria_current(reviewer_client, source):
    queue_claim(source, "abstained")
    queue_claim(source, "coverage_gap")
    html = reviewer_client.get("/review/?reason=abstained").content.decode()
    assert _links_with_aria_pressed(html) == []
    assert 'data-reason="abstained" aria-current="true"' in html
    assert 'data-reason="coverage_gap" aria-current="false"' in html


def test_source_state_filter_links_mark_the_current_filter_with_aria_current(
    auditor_client, source
):
    queue_claim(source, "contradicted")
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(url).content.decode()
    assert 'data-state="contradicted"' in html  # the filter links are on the page
    assert _links_with_aria_pressed(html) == []
    assert re.search(r'<a href="\?[^"]*" aria-current="true">all ', html)
    # a named group, not a paragraph (a paragraph may not carry a name)
    assert '<div class="chips" role="group" aria-label="Filter by state">' in html
    assert not re.search(r"<p\b[^>]*aria-label=", html)
    filtered = auditor_client.get(url + "?state=contradicted").content.decode()
    assert 'data-state="contradicted" aria-current="true"' in filtered


def test_the_chosen_chip_stays_marked_in_the_stylesheet():
    css = (Path(settings.BASE_DIR) / "static" / "css" / "console.css").read_text()
    assert "aria-pressed" not in css.replace("button[aria-pressed", "")
    assert '.chip a[aria-current="true"]' in css
    assert '.chips a[aria-current="true"]' in css


def test_message_regions_wrap_their_lists(admin_client_ws):
    """A live region on the <ul> itself took its list role: every <li> was an orphan."""
    html = admin_client_ws.get("/audit/rules/diff/?a=zzz").content.decode()  # a warning
    assert re.search(r'<div role="status" id="messages-status"><ul class="messages"><li ', html)
    assert not re.search(r"<(ul|ol)\b[^>]*\brole=", html)


def test_member_buttons_speak_their_visible_words(admin_client_ws):
    html = admin_client_ws.get(reverse("audit:members")).content.decode()
    buttons = LABELLED_BUTTON.findall(html)
    assert any(text.strip() == "Take out" for _, text in buttons)
    for label, text in buttons:
        assert text.strip().lower() in label.lower(), (label, text)


def test_trust_chart_with_links_is_a_group_not_an_image(auditor_client, workspace):
    IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(95, 4, 1, 3)
    )
    IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(50, 30, 20, None)
    )
    html = auditor_client.get(reverse("audit:quality")).content.decode()
    charts = SVG.findall(html)
    assert any("<a " in body for _, body in charts)  # the dots link to their rows
    for attrs, body in charts:
        if "<a " in body:
            assert 'role="img"' not in attrs
            assert 'role="group"' in attrs and "aria-labelledby=" in attrs
            for tag in re.findall(r"<a\b[^>]*>", body):
                assert re.search(r'aria-label="Job \d+: [^"]+"', tag), tag
