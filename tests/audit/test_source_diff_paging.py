"""The source diff page's two span lists ("no longer hold", "unchanged") are paged, each on
its own: a source with thousands of bound spans renders a page of each, with the counts
of all of them, links that keep the versions compared and the other list's page, and the
same queries for few rows as for many. Finding: both lists were rendered whole."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.selectors import sources as source_selectors
from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

MIDDLE = "Sediment settles where the current slows."
LAST = "Salt marsh grasses trap silt at high tide."
PAGE = 3

# session, user, membership (3); the source, its versions, the two versions compared (4);
# the spans bound to the "from" version (1); the claims of the rows shown (1).
DIFF_PAGE_MAX_QUERIES = 9


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(source_selectors, "DIFF_SPANS_PAGE_SIZE", PAGE)


def _source_with(workspace, *, lost: int, held: int):
    """A source whose v1 has ``lost`` spans on LAST (gone in v2) and ``held`` on MIDDLE."""
    source = make_source(workspace)
    claims = {"lost": [], "held": []}
    for kind, quote, n in (("lost", LAST, lost), ("held", MIDDLE, held)):
        for i in range(n):
            claim = make_claim(source, f"{kind} claim {i}.")
            make_binding(claim, quote)
            claims[kind].append(claim)
    source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT.replace(LAST, "X."))
    return source, claims


def _html(client, source, **query) -> str:
    response = client.get(reverse("audit:source-diff", args=[source.pk]), query)
    assert response.status_code == 200
    return response.content.decode()


def _lists(html: str) -> tuple[str, str]:
    section = html[html.index('id="stale-h"') : html.index('id="diff-h"')]
    return section[: section.index('id="held-h"')], section[section.index('id="held-h"') :]


def _shown(part: str, claims) -> list[str]:
    return [c.public_id for c in claims if c.public_id in part]


def test_each_list_shows_a_page_of_its_spans_and_counts_all_of_them(
    auditor_client, workspace, small_pages
):
    source, claims = _source_with(workspace, lost=PAGE + 2, held=PAGE + 1)

    lost, held = _lists(_html(auditor_client, source))

    assert "Spans that no longer hold in v2 (5)" in lost
    assert len(_shown(lost, claims["lost"])) == PAGE
    assert "Page 1 of 2 · 5 in all" in lost
    assert 'aria-label="Pages of the spans that no longer hold"' in lost
    assert "Spans unchanged in v2 (4)" in held
    assert "<details><summary>4 claims whose spans hold in v2</summary>" in held
    assert len(_shown(held, claims["held"])) == PAGE
    assert "Page 1 of 2 · 4 in all" in held
    # no span of one list is shown in the other
    assert not _shown(lost, claims["held"]) and not _shown(held, claims["lost"])


def test_a_page_link_keeps_the_versions_and_the_other_lists_page(
    auditor_client, workspace, small_pages
):
    source, claims = _source_with(workspace, lost=PAGE + 2, held=PAGE + 1)

    html = _html(auditor_client, source, **{"from": "1", "to": "2", "held_page": "2"})
    lost, held = _lists(html)
    (next_lost,) = re.findall(r'<a href="([^"]+)" rel="next">', lost)
    assert next_lost.endswith("#lost-h")
    assert "from=1" in next_lost and "to=2" in next_lost and "held_page=2" in next_lost
    assert "lost_page=2" in next_lost
    # the second page of the unchanged spans is open, its rows the ones after the first page
    assert "<details open>" in held and "Page 2 of 2 · 4 in all" in held
    assert _shown(held, claims["held"]) == [claims["held"][-1].public_id]

    lost2, held2 = _lists(_html(auditor_client, source, **{"lost_page": "2", "held_page": "2"}))
    assert _shown(lost2, claims["lost"]) == [c.public_id for c in claims["lost"][PAGE:]]
    assert "Page 2 of 2 · 5 in all" in lost2
    assert 'rel="prev"' in lost2 and 'rel="next"' not in lost2
    assert _shown(held2, claims["held"]) == [claims["held"][-1].public_id]


@pytest.mark.parametrize("value", ["99", "0", "x", "-1", "1e3"])
def test_a_page_number_out_of_range_or_not_a_number_shows_the_nearest_page(
    auditor_client, workspace, small_pages, value
):
    source, claims = _source_with(workspace, lost=PAGE + 1, held=0)
    lost, _held = _lists(_html(auditor_client, source, lost_page=value))
    assert "Spans that no longer hold in v2 (4)" in lost
    assert _shown(lost, claims["lost"])


def test_the_diff_page_reads_a_bounded_number_of_queries_for_thousands_of_spans(
    auditor_client, workspace
):
    def count(lost: int, held: int) -> int:
        source, _claims = _source_with(workspace, lost=lost, held=held)
        url = reverse("audit:source-diff", args=[source.pk])
        with CaptureQueriesContext(connection) as queries:
            html = auditor_client.get(url).content.decode()
        assert f"Spans that no longer hold in v2 ({lost})" in html
        return len(queries)

    few = count(1, 1)
    many = count(
        source_selectors.DIFF_SPANS_PAGE_SIZE + 5, source_selectors.DIFF_SPANS_PAGE_SIZE + 5
    )
    assert few == many <= DIFF_PAGE_MAX_QUERIES


def test_a_page_shows_no_more_rows_than_a_page_holds(auditor_client, workspace):
    size = source_selectors.DIFF_SPANS_PAGE_SIZE
    source, _claims = _source_with(workspace, lost=size + 1, held=size + 1)
    lost, held = _lists(_html(auditor_client, source))
    assert lost.count("<tr><td>") == size and held.count("<tr><td>") == size
