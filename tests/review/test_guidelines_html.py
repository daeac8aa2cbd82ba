"""The guidelines' markdown: CommonMark with tables and strikethrough, raw HTML kept only
where the allow-list has it, headings from h2, links without script."""

from __future__ import annotations

import pytest

from review.guidelines import guidelines_html


def test_markdown_tables_lists_and_allowed_html_are_kept():
    html = guidelines_html(
        "# How we decide\n\n**Supported** needs the span. Press <kbd>s</kbd>.\n\n"
        "| Reason | Do |\n|---|---|\n| Stale | send back |\n\n1. read\n2. decide\n\n~~old rule~~"
    )
    assert "<h2>How we decide</h2>" in html and "<h1>" not in html
    assert "<strong>Supported</strong>" in html and "<kbd>s</kbd>" in html
    assert "<th>Reason</th>" in html and "<td>send back</td>" in html
    assert "<ol>\n<li>read</li>" in html and "<s>old rule</s>" in html


def test_script_handlers_and_script_urls_do_not_survive():
    html = guidelines_html(
        "<script>alert(1)</script> <img src=x onerror=alert(1)> [a](javascript:alert(1)) "
        '<a href="https://example.org" onclick="x">ok</a> <span style="color:red">s</span>'
    )
    assert "<script" not in html and "onerror" not in html and "onclick" not in html
    assert 'href="javascript' not in html and "style=" not in html and "<img" not in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>' in html


@pytest.mark.django_db
def test_saving_empty_guidelines_says_they_were_cleared(admin_client_ws, reviewer_client):
    """An admin who empties the text and saves is told the guidelines were cleared
    (before: "Guidelines saved: reviewers see them beside every item."), and the page
    says so rather than "No guidelines yet"."""
    saved = admin_client_ws.post("/review/guidelines/edit/", {"text": "# Rules\n\nBe exact."})
    page = admin_client_ws.get(saved["Location"]).content.decode()
    assert "Guidelines saved: reviewers see them beside every item." in page
    cleared = admin_client_ws.post("/review/guidelines/edit/", {"text": "   "})
    assert cleared.status_code == 302
    page = admin_client_ws.get(cleared["Location"]).content.decode()
    assert "Guidelines cleared: reviewers see none beside the items." in page
    assert "Guidelines saved" not in page
    assert "No guidelines: they were cleared." in page
    assert "No guidelines yet" not in page
    assert (
        "No guidelines: they were cleared."
        in reviewer_client.get("/review/guidelines/").content.decode()
    )
