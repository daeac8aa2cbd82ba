"""Accessible markup on the pages added or changed together (the Decisions page, the 412
"workspace changed" page, the paged source diff and trace pages, the review item's
"Hand back" and "Release … hold" buttons, the sign-in field error, the 403 page), found
by an axe-core sweep (WCAG 2.1 A/AA) and a Tab walk of a live console.

Checks on the rendered HTML, so they run without a browser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.factories import DEFAULT_TEXT, make_source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

LAST = "Salt marsh grasses trap silt at high tide."
DIFF_BOX = re.compile(r'<div class="source-text diff"([^>]*)>')


def test_the_diff_text_box_takes_keyboard_focus_and_is_named(auditor_client, workspace):
    """axe scrollable-region-focusable (serious, WCAG 2.1.1): the diff box scrolls
    (``.source-text`` has max-height and overflow:auto) yet held nothing focusable, so a
    keyboard user could not scroll a long diff. It takes focus now, as a region named by
    the "Text diff" heading (a generic div may not carry a name)."""
    source = make_source(workspace)
    source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT.replace(LAST, "X."))
    html = auditor_client.get(reverse("audit:source-diff", args=[source.pk])).content.decode()
    assert '<h2 id="diff-h">Text diff</h2>' in html
    found = DIFF_BOX.search(html)
    assert found is not None
    attributes = found.group(1)
    assert 'tabindex="0"' in attributes
    assert 'role="region"' in attributes
    assert 'aria-labelledby="diff-h"' in attributes


def test_the_focused_diff_box_shows_its_focus():
    css = (Path(settings.BASE_DIR) / "static" / "css" / "console.css").read_text()
    assert re.search(r"\.source-text:focus\s*\{[^}]*outline:\s*2px solid", css)
    assert re.search(r"\.source-text\s*\{[^}]*overflow:\s*auto", css)
