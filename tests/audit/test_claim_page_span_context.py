"""The claim page's quoted context is the source's text only (walk finding: a cut context
began or ended with "…" inside the blockquote, so copying it gave a character the source
does not have); where it is cut, the mark stands outside the quote, hidden from screen
readers, whose description says it in words."""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.urls import reverse

from audit.selectors.claim_page import SPAN_CONTEXT_CHARS
from tests.factories import make_binding, make_claim, make_source

pytestmark = pytest.mark.django_db

QUOTE = "Sediment settles where the current slows near the old harbour wall."
FILLER = "Tide tables were kept by the harbour master for every season of the year. "


def _page(client, claim) -> str:
    response = client.get(reverse("audit:claim-detail", args=[claim.public_id]))
    assert response.status_code == 200
    return response.content.decode()


def _quoted_text(page: str) -> str:
    """The blockquote's text as a browser copies it: tags dropped, entities read."""
    inner = re.search(
        r'<blockquote class="source-text span-context"[^>]*>(.*?)</blockquote>', page, re.S
    )
    assert inner is not None
    return html_lib.unescape(re.sub(r"<[^>]+>", "", inner.group(1)))


def _claim_in(workspace, text: str):
    source = make_source(workspace, ref="source:harbour_log", text=text)
    claim = make_claim(source, "Sediment settles near the harbour wall.")
    return claim, make_binding(claim, QUOTE)


def test_a_context_cut_on_both_sides_quotes_exactly_the_source(auditor_client, workspace):
    text = FILLER * 8 + QUOTE + " " + FILLER * 8
    assert text.index(QUOTE) > SPAN_CONTEXT_CHARS and len(text) - text.index(QUOTE) > 400
    claim, binding = _claim_in(workspace, text)
    page = _page(auditor_client, claim)
    quoted = _quoted_text(page)
    lo = binding.start - SPAN_CONTEXT_CHARS
    assert quoted == text[lo : binding.end + SPAN_CONTEXT_CHARS]
    assert "…" not in quoted
    # the marks sit outside the blockquote, before and after it, hidden from the tree
    before = page.index('id="span-context-cut-before" aria-hidden="true">…</p>')
    after = page.index('id="span-context-cut-after" aria-hidden="true">…</p>')
    assert before < page.index("<blockquote") < page.index("</blockquote>") < after
    words = page[page.index('id="span-context-words"') :]
    assert words[: words.index("</p>")].endswith(
        "The text before and after it is context; the source goes on before and after it."
    )


def test_a_context_cut_after_only_says_so(auditor_client, workspace):
    text = QUOTE + " " + FILLER * 8
    claim, binding = _claim_in(workspace, text)
    page = _page(auditor_client, claim)
    assert _quoted_text(page) == text[: binding.end + SPAN_CONTEXT_CHARS]
    assert 'id="span-context-cut-before"' not in page
    assert 'id="span-context-cut-after"' in page
    assert "context; the source goes on after it.</p>" in page


def test_a_whole_short_source_has_no_cut_mark(auditor_client, workspace):
    text = "Intro. " + QUOTE + " End."
    claim, _ = _claim_in(workspace, text)
    page = _page(auditor_client, claim)
    assert _quoted_text(page) == text
    assert "span-context-cut" not in page
    assert "The text before and after it is context.</p>" in page
