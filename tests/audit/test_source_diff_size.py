"""The source diff of two long versions shows the changes, not the whole text. Findings
(two versions of a 5,000,000-character source, one word added): the page held the whole
text — 5 MB, or 10 MB when the text has no line break, as the whole line removed and
added again, which Chromium took 26 s to load. Now a changed line's shared beginning and
end stay unchanged text, an unchanged run shows only the characters either side of a
change (the rest is said, "N unchanged characters not shown"), a long removed or added
run shows its two ends, and a long diff is paged."""

from __future__ import annotations

import regex
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from audit.highlighting import (
    DIFF_CONTEXT_CHARS,
    DIFF_PAGE_CHARS,
    DiffCut,
    DiffSegment,
    diff_pages,
    diff_segments,
)
from tests.factories import make_source
from verifier.services.sources import source_upsert

WORDS = [f"w{i}" for i in range(5000)]
ONE_LINE = " ".join(WORDS) + "."  # more words than the word diff compares at once


def test_one_word_added_to_a_long_line_is_that_word_not_the_line():
    new = ONE_LINE.replace(" w2500 ", " w2500 added ")
    diff = diff_segments(ONE_LINE, new)
    assert [(d.op, d.text) for d in diff if d.op != "equal"] == [("insert", "added ")]
    assert "".join(d.text for d in diff if d.op != "insert") == ONE_LINE
    assert "".join(d.text for d in diff if d.op != "delete") == new


# Pieces with user-perceived characters of several code points, a combining mark after a
# space, and line ends, so a cut at a shared beginning or end could tear one.
PIECES = [
    "a",
    "b",
    " ",
    "  ",
    "\n",
    "\r\n",
    ",",
    "e\u0301",
    " \u0301",
    "👩\u200d🔬",
    "🇫🇷",
    "👍🏽",
    "中",
]
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
_CLUSTER = regex.compile(r"\X")


def _boundaries(text: str) -> set[int]:
    return {0, *(m.end() for m in _CLUSTER.finditer(text))}


@given(TEXT, TEXT)
def test_a_diff_never_cuts_inside_a_user_perceived_character(old, new):
    diff = diff_segments(old, new)
    at_old, at_new = 0, 0
    for seg in diff:
        if seg.op != "insert":
            at_old += len(seg.text)
            assert at_old in _boundaries(old)
        if seg.op != "delete":
            at_new += len(seg.text)
            assert at_new in _boundaries(new)


@given(
    TEXT,
    TEXT,
    st.integers(0, 6),
    st.integers(0, 12),
    st.integers(1, 30),
)
def test_the_pages_of_a_diff_account_for_every_character_in_order(
    old, new, context, run_shown, page_chars
):
    pages = diff_pages(
        diff_segments(old, new), context=context, run_shown=run_shown, page_chars=page_chars
    )
    assert all(pages)
    at = {"old": 0, "new": 0}
    for piece in (p for page in pages for p in page):
        for side, text, skip in (("old", old, "insert"), ("new", new, "delete")):
            if piece.op == "cut":
                assert isinstance(piece, DiffCut) and piece.chars > 0
                if piece.within != skip:
                    at[side] += piece.chars
            elif piece.op != skip:
                assert isinstance(piece, DiffSegment)
                assert text[at[side] : at[side] + len(piece.text)] == piece.text
                at[side] += len(piece.text)
            assert at[side] in _boundaries(text)  # no piece ends inside a character
    if old != new:
        assert at == {"old": len(old), "new": len(new)}
    else:
        assert pages == []


def _lines(n: int) -> list[str]:
    return [f"Line {i}: " + " ".join(WORDS[i % 50 : i % 50 + 20]) + ".\n" for i in range(n)]


def _diff_page(client, workspace, old: str, new: str, **query) -> str:
    source = make_source(workspace, text=old)
    source_upsert(workspace=workspace, ref=source.ref, text=new)
    response = client.get(
        reverse("audit:source-diff", args=[source.pk]), {"from": 1, "to": 2, **query}
    )
    assert response.status_code == 200
    return response.content.decode()


def test_a_long_line_with_one_word_added_shows_the_word_and_says_what_is_left_out(
    auditor_client, workspace
):
    old = ONE_LINE * 8  # ~230,000 characters on one line
    new = old.replace(" w2500 ", " w2500 added ", 1)
    page = _diff_page(auditor_client, workspace, old, new)
    diff = page[page.index('id="diff-h"') :]
    assert "<ins>added </ins>" in diff
    assert len(diff) < 4 * DIFF_CONTEXT_CHARS + 2_000
    before = old.index(" w2500 ") + len(" w2500 ") - DIFF_CONTEXT_CHARS
    assert f"{before:,} unchanged characters not shown" in diff
    assert "Each change is shown with up to 300 unchanged characters either side" in page


def test_a_long_diff_is_paged_and_each_page_names_its_place(auditor_client, workspace):
    lines = _lines(4000)  # ~300,000 characters, 200 changes far apart
    changed = [
        line.replace(": ", ": changed ", 1) if i % 20 == 0 else line for i, line in enumerate(lines)
    ]
    old, new = "".join(lines), "".join(changed)
    first = _diff_page(auditor_client, workspace, old, new)
    diff = first[first.index('id="diff-h"') :]
    assert len(diff) < 2 * DIFF_PAGE_CHARS + 20_000
    assert "<ins>changed </ins>" in diff and "Line 0: " in diff
    pages = int(regex.search(r"Page 1 of (\d+) of the diff", diff)[1])
    assert pages > 1 and 'rel="next">Later changes →</a>' in diff
    last = auditor_client.get(
        reverse("audit:source-diff", args=[_source_id(first)]),
        {"from": 1, "to": 2, "diff_page": pages},
    ).content.decode()
    assert f"Page {pages} of {pages} of the diff" in last
    assert (
        "Line 3980: <ins>changed </ins>" in last
        and "Line 0: " not in last[last.index('id="diff-h"') :]
    )


def _source_id(page: str) -> int:
    return int(regex.search(r'href="/audit/sources/(\d+)/"', page)[1])
