"""An auditor's walk (second helper): pagination links whose query keys hold ``&``, ``=``
or spaces, and version diffs that differ only in whitespace, in line ends, or in one code
point inside an emoji sequence: truthful, never torn, never a 500."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qsl

import pytest
from django.urls import reverse

from audit.highlighting import diff_segments
from tests.factories import make_claim, make_source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

ODD_KEY = "a&b=c d#e"


def _link(html: str, rel: str) -> str:
    m = re.search(r'<a href="([^"]*)"[^>]*rel="' + rel + '"', html)
    assert m, html
    return html_lib.unescape(m.group(1))


def test_numbered_pagination_keeps_an_odd_key_as_one_parameter(auditor_client, workspace):
    for i in range(55):
        make_source(workspace, ref=f"source:s{i:02d}")
    url = reverse("audit:source-list")
    response = auditor_client.get(url, {ODD_KEY: "x&y", "q": "source"})
    assert response.status_code == 200
    nxt = _link(response.content.decode(), "next")
    assert nxt.startswith("?")
    params = parse_qsl(nxt[1:], keep_blank_values=True)
    assert params == [(ODD_KEY, "x&y"), ("q", "source"), ("page", "2")]
    # and the link works: page 2, the same parameters, a link back to page 1
    page2 = auditor_client.get(url + nxt)
    assert "Page 2 of 2" in page2.content.decode()
    prev = _link(page2.content.decode(), "prev")
    assert parse_qsl(prev[1:]) == [(ODD_KEY, "x&y"), ("q", "source"), ("page", "1")]


def test_keyset_pagination_keeps_an_odd_key_as_one_parameter(auditor_client, workspace):
    source = make_source(workspace)
    for i in range(55):
        make_claim(source, f"Claim {i}.")
    url = reverse("audit:claim-list")
    response = auditor_client.get(url, {ODD_KEY: "x&y"})
    assert response.status_code == 200
    nxt = _link(response.content.decode(), "next")
    params = dict(parse_qsl(nxt[1:]))
    assert params[ODD_KEY] == "x&y" and params["page"] == "2" and "after" in params
    assert auditor_client.get(url + nxt).status_code == 200


def _diff_html(client, source) -> str:
    response = client.get(reverse("audit:source-diff", args=[source.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    return text[text.index('id="diff-h"') :]


def test_a_whitespace_only_change_is_shown_and_said(auditor_client, workspace):
    source = make_source(workspace, text="The wall  was rebuilt.\nNext line.")
    source_upsert(workspace=workspace, ref=source.ref, text="The wall was rebuilt.\nNext line. ")
    page = _diff_html(auditor_client, source)
    assert "differ only in whitespace" in page
    assert (
        '<del class="blank" title="removed: 2 spaces"><span class="visually-hidden">'
        "removed whitespace: 2 spaces</span>··</del>"
    ) in page
    assert "added whitespace: 1 space</span>·</ins>" in page


def test_crlf_against_lf_is_shown_as_carriage_returns(auditor_client, workspace):
    source = make_source(workspace, text="Line one.\r\nLine two.\r\n")
    source_upsert(workspace=workspace, ref=source.ref, text="Line one.\nLine two.\n")
    page = _diff_html(auditor_client, source)
    assert "differ only in their line ends: v1 has 2 Windows line ends (CR LF), v2 0" in page
    assert "removed whitespace: 1 carriage return, 1 line feed</span>␍↵\n</del>" in page
    assert "\r" not in page  # a raw CR would be read as a line feed by the browser


def test_an_equal_run_keeps_its_carriage_returns_exact(auditor_client, workspace):
    source = make_source(workspace, text="Line one.\r\nLine two.")
    source_upsert(workspace=workspace, ref=source.ref, text="Line one.\r\nLine 2.")
    page = _diff_html(auditor_client, source)
    assert "Line one.&#13;\nLine <del>two</del><ins>2</ins>." in page


@pytest.mark.parametrize(
    ("old", "new", "removed", "added"),
    [
        (
            "Family 👨\u200d👩\u200d👧 here.",
            "Family 👨\u200d👩\u200d👦 here.",
            "👨\u200d👩\u200d👧",
            "👨\u200d👩\u200d👦",
        ),
        ("Flag 🇫🇷 here.", "Flag 🇫🇮 here.", "🇫🇷", "🇫🇮"),
        ("Thumb 👍🏻 here.", "Thumb 👍🏽 here.", "👍🏻", "👍🏽"),
        ("A cafe\u0301 here.", "A cafe\u0300 here.", "cafe\u0301", "cafe\u0300"),
    ],
)
def test_one_code_point_changed_in_an_emoji_shows_whole_characters(
    auditor_client, workspace, old, new, removed, added
):
    source = make_source(workspace, text=old)
    source_upsert(workspace=workspace, ref=source.ref, text=new)
    page = _diff_html(auditor_client, source)
    assert f"<del>{removed}</del><ins>{added}</ins>" in page


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("a\u200d", "a"),
        ("\u200d\u200db", "\u200db"),
        ("\u0301start", "start"),
        ("🇫🇷🇩🇪🇮", "🇫🇷🇩🇰🇮"),
        ("x\r\n\r\ny", "x\n\ry"),
        ("tab\there", "tab here\u00a0"),
    ],
)
def test_diffs_join_back_to_both_texts(old, new):
    segments = diff_segments(old, new)
    assert "".join(s.text for s in segments if s.op != "insert") == old
    assert "".join(s.text for s in segments if s.op != "delete") == new
