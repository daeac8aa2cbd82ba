"""A long source renders a window of its text around the focus, not every span."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from audit.highlighting import SPAN_MAP_CELLS
from tests.factories import make_source
from verifier.models import Claim, EvidenceBinding

pytestmark = pytest.mark.django_db

SENTENCES = 800
STATES = ("supported", "unverified", "contradicted", "excluded")


@pytest.fixture
def long_source(workspace):
    sentences = [
        f"Record {i} says the river rose by {i % 37} centimetres." for i in range(SENTENCES)
    ]
    text = " ".join(sentences)
    source = make_source(workspace, ref="source:long", text=text)
    version = source.versions.get()
    claims = Claim.objects.bulk_create(
        [
            Claim(
                workspace=workspace,
                source=source,
                text=f"Claim {i}.",
                original_text=f"Claim {i}.",
                state=STATES[i % 4],
                state_reason="test",
            )
            for i in range(SENTENCES)
        ]
    )
    bindings, at = [], 0
    for claim, sentence in zip(claims, sentences, strict=True):
        bindings.append(
            EvidenceBinding(
                claim=claim,
                source_version=version,
                quote=sentence,
                start=at,
                end=at + len(sentence),
                source_hash=version.sha256,
                match="exact",
                bound_by="quote",
            )
        )
        at += len(sentence) + 1
    EvidenceBinding.objects.bulk_create(bindings)
    return source, version, claims, bindings


def _get(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_source_page_renders_a_window_not_the_whole_text(auditor_client, long_source):
    source, version, _, _bindings = long_source
    html = _get(auditor_client, reverse("audit:source-detail", args=[source.pk]))
    assert len(version.text) > 39_000
    assert len(html) < 75_000  # the bound is 300 KB; the span map is ~5 KB of it
    assert "Record 0 says" in html and f"Record {SENTENCES - 1} says" not in html
    # every span is still marked: the span map covers the whole text, the rendered window
    # is outlined, and the stretches after it link to where their spans are
    span_map = html.split('id="span-map"')[1].split("</nav>")[0]
    marker = r'<a href="\?at=(\d+)" class="map-cell d(\d) map-([a-z]+)( here)?"'
    markers = re.findall(marker, span_map)
    assert len(markers) == SPAN_MAP_CELLS
    assert any(here for *_, here in markers) and not markers[-1][3]
    assert int(markers[-1][0]) > len(version.text) * 0.9
    assert len(re.findall(r'<mark class="span span-', html)) < 150
    assert "Later text" in html and "Earlier text" not in html
    assert f"Page 1 of {SENTENCES // 50}" in html
    assert f"all {SENTENCES}" in html


def test_span_query_focuses_a_span_far_into_the_text(auditor_client, long_source):
    source, version, claims, bindings = long_source
    b = bindings[700]
    url = reverse("audit:source-version", args=[source.pk, version.sha256])
    html = _get(auditor_client, f"{url}?span={b.start}-{b.end}")
    focused = re.findall(r'<mark class="span span-[a-z]+[^"]*focus"[^>]*>', html)
    assert len(focused) == 1 and f'id="seg-{b.start}"' in focused[0]
    assert 'aria-current="location"' in focused[0]
    assert "Earlier text" in html and "Record 0 says" not in html
    # The claims list opens at the focused claim's page and pins it.
    assert 'id="pinned-claims"' in html
    pinned = html.split('id="pinned-claims"')[1].split("</ul>")[0]
    assert claims[700].public_id in pinned
    assert f"Page {700 // 50 + 1} of" in html
    assert f'id="binding-{b.pk}"' in html


def test_seg_start_and_claim_focus_the_same_span(auditor_client, long_source):
    source, version, claims, bindings = long_source
    b = bindings[555]
    url = reverse("audit:source-version", args=[source.pk, version.sha256])
    by_start = _get(auditor_client, f"{url}?span={b.start}")
    by_claim = _get(auditor_client, f"{url}?claim={claims[555].public_id}")
    for html in (by_start, by_claim):
        focused = re.findall(r'<mark class="span span-[a-z]+[^"]*focus"[^>]*>', html)
        assert len(focused) == 1 and f'data-end="{b.end}"' in focused[0]


def test_highlights_are_coloured_by_state_with_a_legend(auditor_client, long_source):
    source, _, _, bindings = long_source
    html = _get(auditor_client, reverse("audit:source-detail", args=[source.pk]))
    for i, state in enumerate(STATES):
        assert f'class="span span-{state}" id="seg-{bindings[i].start}"' in html
    legend = html.split('aria-label="Highlight legend"')[1].split("</ul>")[0]
    for label in ("Supported", "Unverified", "Contradicted", "Excluded", "Focused span"):
        assert label in legend


def test_claims_bound_here_filters_by_state_and_pages(auditor_client, long_source):
    source, _, claims, _ = long_source
    url = reverse("audit:source-detail", args=[source.pk])
    html = _get(auditor_client, f"{url}?state=contradicted&cpage=2")
    listed = html.split('id="span-claims"')[1].split("</ul>")[0]
    assert listed.count("state-contradicted") == 50
    assert "state-supported" not in listed
    assert claims[2 + 4 * 50].public_id in listed
    assert f"Page 2 of {SENTENCES // 4 // 50}" in html


def test_long_source_page_query_count_is_pinned(
    auditor_client, long_source, django_assert_max_num_queries
):
    source, version, claims, _ = long_source
    url = reverse("audit:source-version", args=[source.pk, version.sha256])
    # 13: the claims still bound to an earlier version are counted on the current one
    with django_assert_max_num_queries(13):
        _get(auditor_client, f"{url}?claim={claims[400].public_id}")
