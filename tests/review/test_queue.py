from __future__ import annotations

import re

import pytest

from review.models import ReviewLease
from tests.factories import make_source, make_user
from tests.review.conftest import queue_claim
from verifier.models import ClaimRelation, Trace, TraceClaim

ALL_REASONS = [
    "no_evidence",
    "abstained",
    "low_confidence",
    "stale_source",
    "coverage_gap",
    "contradicted",
    "self_consistency_disagreement",
]


def _row_ids(response) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', response.content.decode())


def test_every_reason_lands_in_the_queue_with_its_reason(make_queue_claim):
    for reason in ALL_REASONS:
        claim = make_queue_claim(reason)
        assert claim.state_reason == reason, (reason, claim.state, claim.state_reason)
        assert claim.state in ("unverified", "contradicted")


def test_queue_orders_by_risk_then_dependents_then_age(
    reviewer_client, make_queue_claim, workspace
):
    made = {reason: make_queue_claim(reason) for reason in ALL_REASONS}
    make_queue_claim("supported")  # not in the queue
    old_abstained = made["abstained"]
    busy_abstained = make_queue_claim("abstained", text="Depended on by others.")
    other = make_queue_claim("no_evidence", text="x")
    ClaimRelation.objects.create(
        workspace=workspace, from_claim=other, to_claim=busy_abstained, kind="supports"
    )
    trace = Trace.objects.create(workspace=workspace, document={})
    TraceClaim.objects.create(
        trace=trace, claim=busy_abstained, included=False, verification_state="unverified"
    )

    ids = _row_ids(reviewer_client.get("/review/"))
    order = [
        made["contradicted"],
        made["coverage_gap"],
        made["stale_source"],
        made["low_confidence"],
        busy_abstained,
        old_abstained,
        made["self_consistency_disagreement"],
        other,  # one relation out: depended on more than the older no-evidence claim
        made["no_evidence"],
    ]
    assert ids == [c.public_id for c in order]


def test_reason_chips_count_and_filter(reviewer_client, make_queue_claim):
    make_queue_claim("abstained")
    make_queue_claim("abstained")
    gap = make_queue_claim("coverage_gap")
    page = reviewer_client.get("/review/").content.decode()
    assert re.search(
        r'data-reason="abstained" aria-pressed="false">abstained <span class="n">2', page
    )
    response = reviewer_client.get("/review/?reason=coverage_gap")
    assert _row_ids(response) == [gap.public_id]
    body = response.content.decode()
    assert 'data-reason="coverage_gap" aria-pressed="true"' in body
    # chips keep counting every reason under the other filters
    assert re.search(
        r'data-reason="abstained" aria-pressed="false">abstained <span class="n">2', body
    )


def test_htmx_filter_returns_the_results_partial(reviewer_client, make_queue_claim):
    make_queue_claim("abstained")
    response = reviewer_client.get(
        "/review/?reason=abstained", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="queue-results"
    )
    assert response.status_code == 200
    assert b"<html" not in response.content
    assert b'id="queue-filter"' in response.content


def test_filters(reviewer_client, reviewer, workspace, make_queue_claim):
    other_source = make_source(workspace, ref="source:other")
    a = make_queue_claim("abstained", judge_model="judge-a")
    b = make_queue_claim("low_confidence", source=other_source, judge_model="judge-b")
    c = make_queue_claim("contradicted", text="Rivers run uphill in wet years.")
    assert _row_ids(reviewer_client.get("/review/?source=source:other")) == [b.public_id]
    assert _row_ids(reviewer_client.get("/review/?judge_model=judge-a")) == [a.public_id]
    assert set(_row_ids(reviewer_client.get("/review/?confidence_min=0.1&confidence_max=0.5"))) == {
        b.public_id
    }
    assert _row_ids(reviewer_client.get("/review/?q=uphill")) == [c.public_id]
    assert _row_ids(reviewer_client.get("/review/?state=contradicted")) == [c.public_id]
    assert _row_ids(reviewer_client.get("/review/?age=old")) == []
    assert len(_row_ids(reviewer_client.get("/review/?age=1d"))) == 3
    assert _row_ids(reviewer_client.get("/review/?mine=true")) == []
    reviewer_client.get(f"/review/item/{a.public_id}/")  # leases it
    assert _row_ids(reviewer_client.get("/review/?mine=true")) == [a.public_id]


def test_inferred_only_by_filter(reviewer_client, source):
    from tests.factories import make_claim
    from verifier.services.claim_state import claim_state_refresh

    claim = make_claim(source, legacy_affirmed=True)
    claim_state_refresh(claim=claim, cause="test")
    assert _row_ids(reviewer_client.get("/review/")) == []
    assert _row_ids(reviewer_client.get("/review/?state=inferred")) == [claim.public_id]


@pytest.mark.parametrize("n", [5, 40])
def test_queue_page_query_count_is_constant(
    reviewer_client, reviewer, source, workspace, django_assert_max_num_queries, n
):
    reasons = ALL_REASONS
    claims = [queue_claim(source, reasons[i % len(reasons)]) for i in range(n)]
    for claim in claims[:3]:
        ReviewLease.objects.create(
            claim=claim,
            reviewer=make_user(workspace=workspace, role="reviewer"),
            served_reason="t",
            expires_at="2999-01-01T00:00:00Z",
        )
    with django_assert_max_num_queries(7):
        response = reviewer_client.get("/review/")
    assert len(_row_ids(response)) == n


def test_auditor_sees_the_queue_without_actions(auditor_client, make_queue_claim):
    make_queue_claim("abstained")
    body = auditor_client.get("/review/").content.decode()
    assert "Start reviewing" not in body
    assert 'id="bulk-form"' not in body
    assert auditor_client.post("/review/start/").status_code == 403
    assert auditor_client.post("/review/bulk/", {"action": "exclude"}).status_code == 403


def test_other_workspace_claims_are_not_listed(reviewer_client, other_workspace):
    foreign = queue_claim(make_source(other_workspace), "abstained")
    body = reviewer_client.get("/review/").content.decode()
    assert foreign.public_id not in body


def test_paged_ordering_matches_the_orm_order(workspace, source):
    """The fast group-wise ordering equals the reference ORM order at every offset."""
    from review.selectors import (
        review_queue_annotated,
        review_queue_default_states,
        review_queue_order,
        review_queue_ordered_ids,
        review_reason_tally,
    )

    claims = [queue_claim(source, ALL_REASONS[i % 7], text=f"c{i}") for i in range(17)]
    for i in range(0, 16, 3):
        ClaimRelation.objects.create(
            workspace=workspace, from_claim=claims[i], to_claim=claims[i + 1], kind="supports"
        )
    queryset = review_queue_default_states(review_queue_annotated(workspace=workspace))
    reference = list(review_queue_order(queryset).values_list("pk", flat=True))
    assert len(reference) == 17
    tally = review_reason_tally(queryset)
    for offset in range(17):
        for limit in (1, 3, 50):
            got = review_queue_ordered_ids(
                queryset=queryset, offset=offset, limit=limit, tally=tally
            )
            assert got == reference[offset : offset + limit], (offset, limit)
    for limit in (1, 4, 9, 50):
        assert (
            review_queue_ordered_ids(queryset=queryset, offset=0, limit=limit)
            == (reference[:limit])
        )


def test_second_page_and_invalid_filter(reviewer_client, source):
    for i in range(53):
        queue_claim(source, ALL_REASONS[i % 7], text=f"claim {i}")
    first = _row_ids(reviewer_client.get("/review/"))
    second_page = reviewer_client.get("/review/?page=2")
    second = _row_ids(second_page)
    assert len(first) == 50 and len(second) == 3
    assert not set(first) & set(second)
    assert "Page 2 of 2 · 53 in all" in second_page.content.decode()
    response = reviewer_client.get("/review/?confidence_min=lots")
    assert response.status_code == 200
    assert "Enter a number" in response.content.decode()
    assert len(_row_ids(response)) == 50
