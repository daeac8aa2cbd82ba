"""Characters a reader cannot see, or that reorder the text shown around them, are marked
on the audit pages and isolated, while the page's text stays the stored text exactly: a
claim stored as ``The client \u202e001$ diap\u202c`` must never read "The client paid
$100" to an auditor."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.highlighting import shown_pieces
from tests.audit.conftest import judge
from tests.factories import make_binding, make_claim, make_source
from verifier.services.sources import source_upsert

RLO, PDF = "\u202e", "\u202c"
BIDI_TEXT = f"Invoice 7: the client {RLO}001$ diap{PDF} on Monday. Isolates \u2066abc\u2069 close."
BIDI_QUOTE = f"{RLO}001$ diap{PDF}"
BIDI_CLAIM = f"The client {RLO}001$ diap{PDF} on Monday."
# the Scottish flag: a black flag and tag characters, one emoji
FLAG = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"


def marked(text: str) -> list[str]:
    return [p.code for p in shown_pieces(text) if p.code]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        (BIDI_CLAIM, ["U+202E", "U+202C"]),
        (
            "a \u2066b\u2069 \u2067c\u2069 \u2068d\u2069",
            ["U+2066", "U+2069", "U+2067", "U+2069", "U+2068", "U+2069"],
        ),
        ("price\u200f 5", ["U+200F"]),
        ("The pa\u200did bill", ["U+200D"]),  # hides a difference between Latin letters
        ("Zero\u200bwidth and word\u2060joiner", ["U+200B", "U+2060"]),
        ("\ufeffbom", ["U+FEFF"]),
        ("in\u00adeffective", ["U+00AD"]),
        (
            "Bell\x07 esc\x1b del\x7f ff\x0c vt\x0b nel\x85",
            ["U+0007", "U+001B", "U+007F", "U+000C", "U+000B", "U+0085"],
        ),
        ("one\rtwo", ["U+000D"]),  # a lone carriage return shows no line break
        # what writing needs is shown as it is
        ("one\r\ntwo\n\tthree", []),
        (
            f"\U0001f468\u200d\U0001f469\u200d\U0001f467 and {FLAG}",
            [],
        ),
        ("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", []),  # Persian: a non-joiner in a word
        (
            "\u0e01\u0e32\u0e23\u200b\u0e1e\u0e39\u0e14",
            [],
        ),  # Thai: a zero-width space between words
        (
            "\u05d4\u05e2\u05d9\u05e8 1998 \u0627\u0644\u0645\u062f\u064a\u0646\u0629 "
            "\u6e2f\u53e3 \U0001d518 cafe\u0301",
            [],
        ),
        ("<script>alert(1)</script> &amp;", []),
    ],
)
def test_shown_pieces_mark_what_hides_or_reorders_and_keep_every_character(text, codes):
    pieces = shown_pieces(text)
    assert "".join(p.text for p in pieces) == text
    assert marked(text) == codes
    assert all(len(p.text) == 1 for p in pieces if p.code or p.cr)
    assert [p.text for p in pieces if p.cr] == [c for c in text if c == "\r"]


@pytest.mark.django_db
def test_claim_page_marks_the_override_in_the_claim_and_its_span(auditor_client, workspace):
    source = make_source(workspace, ref="source:bidi", text=BIDI_TEXT)
    claim = make_claim(source, BIDI_CLAIM)
    judge(claim, binding=make_binding(claim, BIDI_QUOTE))
    page = auditor_client.get(reverse("audit:claim-detail", args=[claim.public_id])).content
    html = page.decode()
    rlo = (
        '<span class="unseen-char" data-char="U+202E" title="U+202E right-to-left override: '
        f'an invisible character, kept in the text and shown here by its code point">{RLO}</span>'
    )
    heading = html[html.index("<h1>") : html.index("</h1>")]
    assert heading.startswith(f"<h1>The client {rlo}001$ diap")
    quote = html[html.index('id="evidence-mark"') : html.index("</blockquote>")]
    assert rlo in quote and 'data-char="U+2066"' in quote
    envelope = html[html.index('id="envelope-json"') : html.index("</pre>")]
    assert envelope.count(rlo) == 2  # the claim's text and its quote
    # nowhere shown is a character that reorders what follows it outside its own isolated
    # span (the words a screen reader hears about the span are not shown)
    words = html.index('id="span-context-words"')
    shown = html[:words] + html[html.index("</span>", html.index('id="span-mark-words"')) :]
    assert shown.count(RLO) == shown.count(f">{RLO}</span>")


@pytest.mark.django_db
def test_source_page_and_lists_mark_the_override(auditor_client, workspace):
    source = make_source(workspace, ref="source:bidi", text=BIDI_TEXT)
    claim = make_claim(source, BIDI_CLAIM)
    judge(claim, binding=make_binding(claim, BIDI_QUOTE))
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(f"{url}?claim={claim.public_id}").content.decode()
    text_pane = html[html.index('id="source-text"') : html.index('id="span-words"')]
    assert text_pane.count('data-char="U+202E"') == 1
    assert text_pane.count('data-char="U+2069"') == 1
    claims = html[html.index('id="claims-h"') :]
    assert claims.count('data-char="U+202E"') == 2  # pinned and listed
    listing = auditor_client.get(reverse("audit:claim-list")).content.decode()
    assert listing.count(RLO) == listing.count('data-char="U+202E" title') == 1
    assert listing.count(RLO) == listing.count(f">{RLO}</span>")


@pytest.mark.django_db
def test_diff_page_marks_an_override_in_added_and_unchanged_text(auditor_client, workspace):
    old = "The client paid the invoice on Monday. The second line stays.\rA lone return."
    new = f"The client {RLO}001$ diap{PDF} the invoice on Monday. The second line stays.\r"
    new += f"A lone return. {RLO}Tail"
    source = make_source(workspace, ref="source:diffed", text=old)
    source_upsert(workspace=workspace, ref=source.ref, text=new)
    url = reverse("audit:source-diff", args=[source.pk])
    html = auditor_client.get(f"{url}?from=1&to=2").content.decode()
    diff = html[html.index('id="diff-text"') : html.index("</div>", html.index('id="diff-text"'))]
    # in the added runs and the unchanged text: each override kept, isolated and shown
    assert diff.count(RLO) == 2
    assert diff.count(f">{RLO}</span>") == 2
    assert diff.count('data-char="U+000D"') == 1  # the unchanged lone carriage return


def test_shown_pieces_read_the_text_around_a_part():
    # a carriage return whose line feed starts the next part is no lone one
    assert marked("Line one.\r") == ["U+000D"]
    assert [p.code for p in shown_pieces("Line one.\r", after="\nLine two")] == ["", ""]
    assert shown_pieces("Line one.\r", after="\n")[-1].cr
    # a joiner that opens or ends a part is read with the letters either side
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"
    assert marked(persian[3:]) == []
    assert [p.code for p in shown_pieces(persian[2:], before=persian[:2]) if p.code] == []
    assert [p.code for p in shown_pieces("\u200did", before="pa") if p.code] == ["U+200D"]
    joined = shown_pieces("ab", before="xyz", after="\r\n")
    assert "".join(p.text for p in joined) == "ab"


@pytest.mark.django_db
def test_a_window_that_ends_between_cr_and_lf_marks_no_lone_return(auditor_client, workspace):
    text = ("x" * 98 + "\r\n") * 100  # a carriage return at 98, 198, …
    source = make_source(workspace, ref="source:crlf_long", text=text)
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(f"{url}?at=99").content.decode()
    assert 'data-window-start="99" data-window-end="6099"' in html
    assert text[6098] == "\r"
    pane = html[html.index('id="source-text"') : html.index('id="span-words"')]
    assert pane.count("&#13;") == 60
    assert "U+000D" not in pane
    lone = text[:5000] + "\r" + text[5001:]  # an "x" made a carriage return: a lone one
    source_upsert(workspace=workspace, ref=source.ref, text=lone)
    html = auditor_client.get(f"{url}?at=99").content.decode()
    pane = html[html.index('id="source-text"') : html.index('id="span-words"')]
    assert pane.count('data-char="U+000D"') == 1
