"""The source diff page's re-check of the claims' spans: a span that no longer holds in the
"to" version (its quote is not at its offsets there, with where the binding layer finds it
now) apart from one whose words are at the same offsets (only the version's hash differs).
Walk finding: every active span was listed as gone stale, because its hash never equals
another version's."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source
from verifier.selectors.permalinks import span_permalink
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

FIRST = "The Marrow River delta gains land in wet years."
MIDDLE = "Sediment settles where the current slows."
LAST = "Salt marsh grasses trap silt at high tide."


def _bound(source, *quotes):
    claims = []
    for quote in quotes:
        claim = make_claim(source, quote)
        make_binding(claim, quote)
        claims.append(claim)
    return claims


def _section(client, source, **query) -> str:
    response = client.get(reverse("audit:source-diff", args=[source.pk]), query)
    assert response.status_code == 200
    html = response.content.decode()
    return html[html.index('id="stale-h"') : html.index('id="diff-h"')]


def _lost_and_held(section: str) -> tuple[str, str]:
    return section[: section.index('id="held-h"')], section[section.index('id="held-h"') :]


def test_only_the_spans_whose_words_left_their_offsets_are_said_not_to_hold(
    auditor_client, workspace
):
    source = make_source(workspace)
    first, middle, last = _bound(source, FIRST, MIDDLE, LAST)
    reeds = "Reeds and rushes hold the mud fast at every tide."  # longer: the offsets are in v2
    source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT.replace(LAST, reeds))

    lost, held = _lost_and_held(_section(auditor_client, source))

    assert "Spans that no longer hold in v2 (1)" in lost
    assert last.public_id in lost and "Quote not at its offsets in v2" in lost
    assert "Not found in v2" in lost  # the binding layer finds it nowhere in v2
    assert first.public_id not in lost and middle.public_id not in lost
    assert "Spans unchanged in v2 (2)" in held
    assert first.public_id in held and middle.public_id in held and last.public_id not in held
    assert "only the version’s hash differs" in held
    assert "<details><summary>2 claims whose spans hold in v2</summary>" in held


def test_a_span_that_moved_says_where_its_quote_is_now(auditor_client, workspace):
    source = make_source(workspace)
    (middle,) = _bound(source, MIDDLE)
    write = source_upsert(workspace=workspace, ref=source.ref, text="Foreword. " + DEFAULT_TEXT)
    new = write.version
    start = new.text.index(MIDDLE)

    lost, held = _lost_and_held(_section(auditor_client, source))

    assert middle.public_id in lost and "Spans unchanged in v2 (0)" in held
    link = span_permalink(
        source_id=source.pk, sha256=new.sha256, start=start, end=start + len(MIDDLE)
    )
    assert f'<a href="{link}">Now at <code>[{start}, {start + len(MIDDLE)})</code></a>' in lost
    assert "Exact" in lost


def test_a_changed_sentence_is_found_the_way_binding_finds_it_and_a_changed_number_is_not(
    auditor_client, workspace
):
    text = f"{FIRST} The dam was finished in 1962 after long delays. {MIDDLE}"
    source = make_source(workspace, text=text)
    dam, middle = _bound(source, "The dam was finished in 1962 after long delays.", MIDDLE)
    changed = text.replace("1962", "1965").replace("current slows.", "current slows down.")
    source_upsert(workspace=workspace, ref=source.ref, text=changed)

    lost, _held = _lost_and_held(_section(auditor_client, source))

    rows = lost.split("<tr>")
    (dam_row,) = [r for r in rows if dam.public_id in r]
    (middle_row,) = [r for r in rows if middle.public_id in r]
    # the fuzzy stage refuses a span that changes a number: the binding layer's rule
    assert "Not found in v2" in dam_row
    assert "Fuzzy" in middle_row and "similar" in middle_row and "Not found" not in middle_row


def test_a_span_past_the_end_of_the_shorter_version_says_so(auditor_client, workspace):
    source = make_source(workspace)
    (last,) = _bound(source, LAST)
    source_upsert(workspace=workspace, ref=source.ref, text=FIRST)

    lost, _held = _lost_and_held(_section(auditor_client, source))

    assert last.public_id in lost and "Offsets outside v2" in lost


def test_empty_states_say_what_is_true(auditor_client, workspace):
    source = make_source(workspace)
    source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT + " More.")
    section = _section(auditor_client, source)
    assert "No claim has an active span bound to v1" in section
    assert 'id="lost-h"' not in section

    other = make_source(workspace)
    _bound(other, MIDDLE)
    source_upsert(workspace=workspace, ref=other.ref, text=DEFAULT_TEXT + " More.")
    lost, held = _lost_and_held(_section(auditor_client, other))
    assert "None: every claim’s span in v1 still holds in v2." in lost
    assert "<table" not in lost
    assert "Spans unchanged in v2 (1)" in held


def test_the_diff_page_reads_the_same_number_of_queries_for_few_and_many_rows(
    auditor_client, workspace
):
    def count(rows: int) -> int:
        source = make_source(workspace)
        for i in range(rows):
            claim = make_claim(source, f"Claim {i}.")
            make_binding(claim, MIDDLE if i % 2 else LAST)
        source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT.replace(LAST, "X."))
        url = reverse("audit:source-diff", args=[source.pk])
        with CaptureQueriesContext(connection) as queries:
            html = auditor_client.get(url).content.decode()
        assert f"Spans that no longer hold in v2 ({(rows + 1) // 2})" in html
        return len(queries)

    assert count(2) == count(30)
