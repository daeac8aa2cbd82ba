"""The source page: versions, highlighted spans, permalinks, diffs and stale claims."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.audit.conftest import QUOTE
from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db


def test_source_page_highlights_overlapping_spans_as_segments(auditor_client, source):
    a = make_claim(source, QUOTE)
    make_binding(a, QUOTE)
    b = make_claim(source, "The current slows.")
    make_binding(b, "the current slows.")
    html = auditor_client.get(reverse("audit:source-detail", args=[source.pk])).content.decode()
    start = DEFAULT_TEXT.index(QUOTE)
    inner = DEFAULT_TEXT.index("the current slows.")
    assert f'data-start="{start}" data-end="{inner}"' in html
    assert 'class="span span-unverified overlap"' in html  # the nested span inside the outer
    assert a.public_id in html and b.public_id in html
    assert source.versions.get().sha256 in html


def test_source_text_is_autoescaped(auditor_client, workspace):
    text = "Intro. <img src=x onerror=alert(1)> is a tag. & so on."
    source = make_source(workspace, text=text)
    claim = make_claim(source, "A tag.")
    make_binding(claim, "<img src=x onerror=alert(1)>")
    html = auditor_client.get(reverse("audit:source-detail", args=[source.pk])).content.decode()
    assert "<img src=x" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html


def test_windows_line_ends_reach_the_page_as_character_references_and_the_text_stays_escaped(
    auditor_client, workspace
):
    text = "Minutes.\r\n<b>Item</b> one & two.\r\nThe budget passed."
    source = make_source(workspace, text=text)
    claim = make_claim(source, "The budget passed.")
    make_binding(claim, "The budget passed.")
    html = auditor_client.get(reverse("audit:source-detail", args=[source.pk])).content.decode()
    pane = html[html.index('id="source-text"') :]
    assert "Minutes.&#13;\n&lt;b&gt;Item&lt;/b&gt; one &amp; two.&#13;\n" in pane
    assert "\r" not in pane and "<b>" not in pane


def test_permalink_opens_that_exact_version(auditor_client, source):
    claim = make_claim(source, QUOTE)
    make_binding(claim, QUOTE)
    old = source.versions.get()
    source_upsert(workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " A new line.")
    url = reverse("audit:source-version", args=[source.pk, old.sha256])
    html = auditor_client.get(url).content.decode()
    assert "not the current version" in html
    assert f'data-start="{old.text.index(QUOTE)}"' in html
    bad = auditor_client.get(reverse("audit:source-version", args=[source.pk, "0" * 64]))
    assert bad.status_code == 404


def test_other_workspace_source_is_404(auditor_client, other_workspace):
    other = make_source(other_workspace)
    assert auditor_client.get(reverse("audit:source-detail", args=[other.pk])).status_code == 404
    sha = other.versions.get().sha256
    url = reverse("audit:source-version", args=[other.pk, sha])
    assert auditor_client.get(url).status_code == 404


def test_diff_shows_changes_and_claims_whose_bindings_went_stale(auditor_client, source):
    stale = make_claim(source, QUOTE)
    make_binding(stale, QUOTE)
    source_upsert(
        workspace=source.workspace,
        ref=source.ref,
        text=DEFAULT_TEXT.replace("Sediment settles", "Sediment drifts"),
    )
    html = auditor_client.get(reverse("audit:source-diff", args=[source.pk])).content.decode()
    assert "<del>settles</del>" in html and "<ins>drifts</ins>" in html
    assert stale.public_id in html
    # in words, never the raw re-check code (auditor walk M5)
    assert "Quote not at its offsets in v2" in html and "span_lost" not in html


def test_diff_with_a_single_version_is_an_empty_state(auditor_client, source):
    html = auditor_client.get(reverse("audit:source-diff", args=[source.pk])).content.decode()
    assert "only one version" in html


def test_source_page_query_count_is_pinned(auditor_client, source, django_assert_max_num_queries):
    for i in range(20):
        claim = make_claim(source, f"claim {i}")
        make_binding(claim, "Sediment settles" if i % 2 else "Salt marsh grasses")
    for n in range(3):
        source_upsert(workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " x" * n)
    with django_assert_max_num_queries(11):  # 10 + the span map's one narrow read
        response = auditor_client.get(
            reverse("audit:source-version", args=[source.pk, source.versions.get(number=1).sha256])
        )
    assert response.status_code == 200


def test_source_list_links_to_detail_and_paginates(auditor_client, workspace):
    for i in range(55):
        make_source(workspace, ref=f"source:s{i:02d}")
    html = auditor_client.get(reverse("audit:source-list")).content.decode()
    assert "Page 1 of 2" in html
    first = workspace.sources.order_by("ref").first()
    assert reverse("audit:source-detail", args=[first.pk]) in html


def test_source_list_searches_and_hides_rag_chunks_by_default(auditor_client, workspace):
    make_source(workspace, ref="source:delta_report")
    make_source(workspace, ref="source:marsh_notes")
    source_upsert(
        workspace=workspace,
        ref="rag-chunk:0123456789abcdef",
        text="HNSW builds a proximity graph.",
        domain_pack="rag",
        door="rag_chunk",
    )
    url = reverse("audit:source-list")
    html = auditor_client.get(url).content.decode()
    assert "source:delta_report" in html and "rag-chunk:0123456789abcdef" not in html
    assert "rag-chunk:0123456789abcdef" in auditor_client.get(f"{url}?rag=1").content.decode()
    found = auditor_client.get(f"{url}?q=marsh").content.decode()
    assert "source:marsh_notes" in found and "source:delta_report" not in found
    assert "No source matches" in auditor_client.get(f"{url}?q=zzz").content.decode()


@pytest.mark.parametrize(
    ("span", "says"),
    [
        ("{end}-{start}", "does not name a span"),
        ("abc", "does not name a span"),
        ("{start}-99999", "lies outside the text"),
        ("{start}-{inside}", "No span is bound at"),
        ("{inside}", "starts at character"),
    ],
)
def test_a_span_link_that_names_no_bound_span_says_so(auditor_client, source, span, says):
    """Not a silent focus on other spans (auditor walk L1)."""
    claim = make_claim(source, QUOTE)
    binding = make_binding(claim, QUOTE)
    value = span.format(start=binding.start, end=binding.end, inside=binding.start + 3)
    url = reverse("audit:source-detail", args=[source.pk])
    html = auditor_client.get(url, {"span": value}).content.decode()
    assert 'id="focus-notice"' in html and says in html
    assert " focus" not in html.split('id="source-text"')[1].split("</div>")[0]
    assert 'aria-current="location"' not in html.split('id="source-text"')[1].split("</div>")[0]
    ok = auditor_client.get(url, {"span": f"{binding.start}-{binding.end}"}).content.decode()
    assert 'id="focus-notice"' not in ok and " focus" in ok


def test_the_current_version_names_claims_left_bound_to_an_earlier_one(auditor_client, workspace):
    """After a new version, the current version's page highlighted nothing and said
    "0 bound spans" with no word of the claims still bound to the old text."""
    from tests.factories import make_claim
    from verifier.services.binding import claim_bind
    from verifier.services.sources import source_upsert

    text = "The harbour wall is 412 metres long. Fishing boats moor on its inner side."
    source = make_source(workspace, ref="source:harbour_notes", text=text)
    claim = make_claim(source, "The harbour wall is 412 metres long.")
    claim_bind(claim=claim, quote="The harbour wall is 412 metres long.")
    source_upsert(
        workspace=workspace, ref=source.ref, text=text.replace("412", "380"), title=source.title
    )
    body = auditor_client.get(f"/audit/sources/{source.pk}/").content.decode()
    notice = body.split('id="earlier-bound">')[1].split("</p>")[0]
    assert notice.startswith("1 claim of this source is bound to an earlier version")
    assert 'href="/audit/claims/?source=source%3Aharbour_notes"' in notice
    old = auditor_client.get(f"/audit/sources/{source.pk}/?at=0")  # still fine elsewhere
    assert old.status_code == 200
