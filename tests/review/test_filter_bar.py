"""The queue's filter bar is kept per distinct filter: what a page shows is what a fresh
render of the same filter shows, whatever was rendered before it."""

from __future__ import annotations

import pytest
from django.http import QueryDict
from django.template.loader import render_to_string

from review import filter_bar
from review.filters import ReviewQueueFilter
from review.selectors.queue import review_queue_claims

PARAMS = [
    "",
    "reason=abstained",
    "state=contradicted&reason=stale_source&q=%3Cscript%3E",
    "confidence_min=abc",  # invalid: the bar carries the field's error
    "domain_pack=pack-b&mine=true&age=7d",
    "ingest_job=12&ingest_job=13",
]


@pytest.fixture(autouse=True)
def _empty_cache():
    filter_bar.filter_bar_cache_clear()
    yield
    filter_bar.filter_bar_cache_clear()


def _bar(workspace, reviewer, query: str, packs: list[str]) -> str:
    params = QueryDict(query)
    filterset = ReviewQueueFilter(
        params,
        queryset=review_queue_claims(workspace=workspace),
        reviewer=reviewer,
        domain_packs=packs,
    )
    filterset.is_valid()
    return filter_bar.filter_bar_html(filterset, key=filter_bar.filter_bar_key(params, packs))


def _fresh(workspace, reviewer, query: str, packs: list[str]) -> str:
    filterset = ReviewQueueFilter(
        QueryDict(query),
        queryset=review_queue_claims(workspace=workspace),
        reviewer=reviewer,
        domain_packs=packs,
    )
    return render_to_string(filter_bar.TEMPLATE, {"filter": filterset})


@pytest.mark.django_db
def test_each_filter_gets_its_own_bar_first_time_and_after(workspace, reviewer):
    packs_sets = (["pack-a"], ["pack-a", "pack-b"])
    for _round in range(2):  # the second round is served from the cache
        for packs in packs_sets:
            for query in PARAMS:
                assert _bar(workspace, reviewer, query, packs) == _fresh(
                    workspace, reviewer, query, packs
                ), (query, packs)
    assert len(filter_bar._bars) == len(PARAMS) * len(packs_sets)
    invalid = _bar(workspace, reviewer, "confidence_min=abc", ["pack-a"])
    assert "form-error" in invalid
    assert "&lt;script&gt;" in _bar(workspace, reviewer, PARAMS[2], ["pack-a"])
    assert 'value="pack-b"' in _bar(workspace, reviewer, "", ["pack-a", "pack-b"])
    assert 'value="pack-b"' not in _bar(workspace, reviewer, "", ["pack-a"])


@pytest.mark.django_db
def test_the_cache_keeps_the_most_recently_used_bars(workspace, reviewer, monkeypatch):
    monkeypatch.setattr(filter_bar, "FILTER_BAR_CACHE_SIZE", 2)
    for query in ("reason=abstained", "reason=coverage_gap", "reason=abstained", "age=1d"):
        _bar(workspace, reviewer, query, [])
    expected = ["reason=abstained", "age=1d"]
    assert list(filter_bar._bars) == [
        filter_bar.filter_bar_key(QueryDict(query), []) for query in expected
    ]
