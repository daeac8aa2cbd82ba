"""What an auditor's walk over non-ASCII sources found: a claim focus that names no span in
the version, an unknown state read as a heading, carriage returns lost in the check
tables, and diffs whose two sides look the same."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.highlighting import cut_text, diff_segments
from tests.audit.conftest import QUOTE
from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db


def test_claim_focus_on_a_version_without_its_span_says_where_its_span_is(auditor_client, source):
    claim = make_claim(source, QUOTE)
    make_binding(claim, QUOTE)  # bound in v1
    source_upsert(workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " More.")
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(f"{url}?claim={claim.public_id}").content.decode()
    assert 'id="focus-notice"' in html
    assert f"Claim “{claim.public_id}” has no span bound in v2: its span is bound in v1" in html
    unknown = auditor_client.get(f"{url}?claim=claim:nosuchclaim").content.decode()
    assert "No claim “claim:nosuchclaim” has a span bound in v2" in unknown


def test_claim_focus_on_its_own_version_has_no_notice(auditor_client, source):
    claim = make_claim(source, QUOTE)
    make_binding(claim, QUOTE)
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(f"{url}?claim={claim.public_id}").content.decode()
    assert 'id="focus-notice"' not in html
    assert 'class="span span-unverified focus"' in html


def test_claim_list_heading_never_names_a_state_that_does_not_exist(auditor_client, source):
    html = auditor_client.get(reverse("audit:claim-list") + "?state=bogus").content.decode()
    heading = html[html.index("<h1>") : html.index("</h1>")]
    assert heading == "<h1>Claims"
    good = auditor_client.get(reverse("audit:claim-list") + "?state=supported").content.decode()
    assert "<h1>Claims · Supported</h1>" in good


def test_claim_page_check_tables_keep_the_quotes_carriage_returns(auditor_client, workspace):
    text = "Line one \U0001f6a2 has a ship.\r\nLine two says the cafe\u0301 opened in 1998.\r\n"
    source = make_source(workspace, ref="source:crlf", text=text)
    quote = "Line one \U0001f6a2 has a ship.\r\nLine two says the cafe\u0301 opened in 1998."
    claim = make_claim(source, "Two lines.")
    make_binding(claim, quote)
    html = auditor_client.get(reverse("audit:claim-detail", args=[claim.public_id])).content
    page = html.decode()
    check = page[page.index('id="check-1"') : page.index('id="check-2"')]
    shown = "Line one \U0001f6a2 has a ship.&#13;\nLine two says the cafe\u0301 opened in 1998."
    assert check.count(shown) == 2  # expected and found, each with its carriage return
    spans = page[page.index('id="evidence-h"') :]
    assert shown in spans
    assert "\r" not in page


def test_diff_marks_a_change_of_encoding_only():
    old = "The cafe\u0301 sells cre\u0302pes.\nIt opened in 1920.\n"
    new = "The caf\u00e9 sells cr\u00eapes.\nIt opened in 1921.\n"
    segs = diff_segments(old, new)
    assert "".join(s.text for s in segs if s.op != "insert") == old
    assert "".join(s.text for s in segs if s.op != "delete") == new
    recoded = [(s.op, s.text) for s in segs if s.recoded]
    assert recoded == [
        ("delete", "cafe\u0301"),
        ("insert", "caf\u00e9"),
        ("delete", "cre\u0302pes"),
        ("insert", "cr\u00eapes"),
    ]
    assert not any(s.recoded for s in segs if "192" in s.text)


def test_diff_page_says_which_changes_only_re_encode_letters(auditor_client, workspace):
    source = make_source(workspace, ref="source:nfc", text="The cafe\u0301 opened in 1920.")
    source_upsert(workspace=workspace, ref=source.ref, text="The caf\u00e9 opened in 1921.")
    html = auditor_client.get(reverse("audit:source-diff", args=[source.pk])).content.decode()
    assert html.count("(the same letters, encoded differently)") == 1
    assert '<ins class="recoded"' in html and '<del class="recoded"' in html
    assert "<del>1920</del><ins>1921</ins>" in html


@pytest.mark.parametrize(
    ("text", "limit", "want"),
    [
        ("cafe\u0301 au lait", 50, "cafe\u0301 au lait"),  # short: as it is, never NFC
        ("cafe\u0301 au lait", 5, "cafe\u0301…"),  # é (two code points) is one character
        (
            "ab\U0001f468\u200d\U0001f469\u200d\U0001f467xyz",
            4,
            "ab\U0001f468\u200d\U0001f469\u200d\U0001f467…",
        ),
        ("Line\r\nnext", 6, "Line\r\n…"),  # CR LF is one character, kept whole
        ("abc", 0, ""),
    ],
)
def test_cut_text_keeps_the_characters_it_keeps(text, limit, want):
    assert cut_text(text, limit) == want


def test_quotes_cut_short_on_pages_stay_decomposed(auditor_client, workspace):
    text = "Intro. " + "The cafe\u0301 " * 40 + "opened."
    source = make_source(workspace, ref="source:nfd", text=text)
    claim = make_claim(source, "The café opened.", submitted_quote="cafe\u0301 " * 3)
    make_binding(claim, text[7:])
    page = auditor_client.get(reverse("audit:claim-detail", args=[claim.public_id]))
    html = page.content.decode()
    table = html[html.index('id="evidence-h"') : html.index('id="envelope-h"')]
    assert "The cafe\u0301 The cafe\u0301" in table and "caf\u00e9" not in table
    assert "“cafe\u0301 cafe\u0301 cafe\u0301 ”" in html  # the submitted quote, as sent


@pytest.mark.parametrize("v", ["abc", "-1", "\uff11", "1.0", "2x"])
def test_a_version_number_that_is_not_one_is_not_found(auditor_client, source, v):
    url = reverse("audit:source-detail", args=[source.pk])
    assert auditor_client.get(url, {"v": v}).status_code == 404
    assert auditor_client.get(url, {"v": "1"}).status_code == 200
    assert auditor_client.get(url, {"v": ""}).status_code == 200
