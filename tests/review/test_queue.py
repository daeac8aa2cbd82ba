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
    "judge_reviewers_disagree",
]


def _row_ids(response) -> list[str]:
    return _row_ids_of(response.content.decode())


def _row_ids_of(body: str) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', body)


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
    # Trace rows do not order the queue (retrieval writes them on every call): a trace
    # of the older claim leaves it behind the one another claim depends on.
    trace = Trace.objects.create(workspace=workspace, document={})
    TraceClaim.objects.create(
        trace=trace, claim=old_abstained, included=False, verification_state="unverified"
    )

    ids = _row_ids(reviewer_client.get("/review/"))
    order = [
        made["contradicted"],
        made["judge_reviewers_disagree"],
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
        r'data-reason="abstained" aria-current="false">Judge undecided <span class="n">2', page
    )
    response = reviewer_client.get("/review/?reason=coverage_gap")
    assert _row_ids(response) == [gap.public_id]
    body = response.content.decode()
    assert 'data-reason="coverage_gap" aria-current="true"' in body
    # chips keep counting every reason under the other filters
    assert re.search(
        r'data-reason="abstained" aria-current="false">Judge undecided <span class="n">2', body
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
    # in percent, as the console shows it; only answers (b: supports, 20 %) have one
    assert set(_row_ids(reviewer_client.get("/review/?confidence_min=10&confidence_max=50"))) == {
        b.public_id
    }
    assert _row_ids(reviewer_client.get("/review/?q=uphill")) == [c.public_id]
    assert _row_ids(reviewer_client.get("/review/?state=contradicted")) == [c.public_id]
    assert _row_ids(reviewer_client.get("/review/?age=old")) == []
    assert len(_row_ids(reviewer_client.get("/review/?age=1d"))) == 3
    assert _row_ids(reviewer_client.get("/review/?mine=true")) == []
    reviewer_client.post("/review/start/?judge_model=judge-a")  # "next" leases it
    assert _row_ids(reviewer_client.get("/review/?mine=true")) == [a.public_id]


def test_mine_is_my_assignments_and_my_live_lease_read_by_their_ids(
    reviewer_client, reviewer, workspace, make_queue_claim
):
    """ "Assigned to me" read as an OR across two outer joins made PostgreSQL read every
    queued claim (436 ms at 100,000 claims); it reads the two sets of ids instead."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from review.models import ReviewAssignment

    assigned = make_queue_claim("abstained", text="Tides rise twice a day at the pier.")
    leased = make_queue_claim("abstained", text="Dunes move inland each winter.")
    make_queue_claim("abstained", text="Reefs shelter the bay from swell.")
    ReviewAssignment.objects.create(claim=assigned, assignee=reviewer, assigned_by=reviewer)
    reviewer_client.post("/review/start/?q=Dunes")  # "next" leases it
    with CaptureQueriesContext(connection) as queries:
        listed = _row_ids(reviewer_client.get("/review/?mine=true"))
    assert set(listed) == {assigned.public_id, leased.public_id}
    assert not [q for q in queries if 'LEFT OUTER JOIN "review_reviewlease"' in q["sql"]]


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
    # session, user, membership, domain packs, counts, keyset, rows
    # + the reviewer's progress and the assignees of the bulk "Assign to" (issue 40.5)
    # + their send-backs to the judge under way (the way back to their progress)
    with django_assert_max_num_queries(10):
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


def _tied_queue(workspace, source, n: int) -> list:
    """``n`` queue claims with many ties on every sort key but the id: three reasons,
    two creation instants, dependents 0 or 1."""
    from django.utils import timezone

    from verifier.models import Claim

    claims = [queue_claim(source, ALL_REASONS[i % 3], text=f"c{i}") for i in range(n)]
    instants = [timezone.now() - timezone.timedelta(days=2), timezone.now()]
    for i, claim in enumerate(claims):
        Claim.objects.filter(pk=claim.pk).update(created_at=instants[(i // 3) % 2])
    for i in range(0, n - 1, 4):
        ClaimRelation.objects.create(
            workspace=workspace, from_claim=claims[i], to_claim=claims[i + 1], kind="supports"
        )
    return claims


def test_keyset_pages_walk_the_queue_once_in_order_with_ties(workspace, source):
    """Forward by ``after`` and back by ``before``, at several page sizes: every claim
    once, in the reference ORM order, although most sort keys tie."""
    from review.selectors.cursor import review_queue_keyset
    from review.selectors.queue import review_queue_claims, review_queue_default_states

    _tied_queue(workspace, source, 23)
    queryset = review_queue_default_states(review_queue_claims(workspace=workspace))
    # the reference: the ORM spelling of the order the keyset reads from its index
    # (riskiest reason, most depended-on, oldest, id)
    ordered = queryset.order_by("queue_rank", "-dependents", "created_at", "id")
    reference = list(ordered.values_list("pk", flat=True))
    assert len(reference) == 23
    for size in (1, 3, 5, 50):
        forward, after, last = [], None, None
        while True:
            keys = review_queue_keyset(queryset, limit=size, after=after)
            forward += [key.id for key in keys]
            last = keys[-1] if keys else last
            if len(keys) < size:
                break
            after = keys[-1]
        assert forward == reference, size
        backward, before = [last.id], last  # back from the last claim
        while True:
            page = review_queue_keyset(queryset, limit=size, before=before)
            backward = [key.id for key in page] + backward
            if len(page) < size:
                break
            before = page[0]
        assert backward == reference, size


def test_queue_pages_by_next_and_previous_links(reviewer_client, workspace, source):
    """The page's own links: rel=next to the end and rel=prev back to the start see
    every claim once; the links carry a cursor and an htmx swap of the results."""
    import html

    claims = _tied_queue(workspace, source, 123)
    url, seen, pages = "/review/", [], []
    while url:
        body = reviewer_client.get(url).content.decode()
        pages.append(_row_ids_of(body))
        seen += pages[-1]
        found = re.search(
            r'<a href="\?([^"]*)" hx-get="\?\1" hx-target="#queue-results"'
            r' hx-push-url="true" rel="next">',
            body,
        )
        url = "/review/?" + html.unescape(found.group(1)) if found else None
        if found:
            assert "after=" in found.group(1)
    assert [len(p) for p in pages] == [50, 50, 23]
    assert len(seen) == len(set(seen)) == len(claims)
    assert "Page 3 of 3 · 123 in all" in body
    back = []
    while True:
        found = re.search(r'<a href="\?([^"]*)"[^>]*rel="prev">', body)
        if not found:
            break
        body = reviewer_client.get("/review/?" + html.unescape(found.group(1))).content.decode()
        back = _row_ids_of(body) + back
    assert back == seen[:100]
    assert "Page 1 of 3" in body
    # the htmx swap of the next page answers the results partial only
    found = re.search(r'href="\?([^"]*)"[^>]*rel="next"', body)
    partial = reviewer_client.get(
        "/review/?" + html.unescape(found.group(1)),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="queue-results",
    ).content.decode()
    assert "<html" not in partial and _row_ids_of(partial) == seen[50:100]


def test_a_malformed_cursor_shows_the_first_page(reviewer_client, source):
    for i in range(3):
        queue_claim(source, ALL_REASONS[i], text=f"claim {i}")
    first = _row_ids(reviewer_client.get("/review/"))
    for bad in ("x", "1.2.3", "1.2.3.4.5", "9.9.99999999999999999999999.1"):
        response = reviewer_client.get(f"/review/?after={bad}")
        assert response.status_code == 200
        assert _row_ids(response) == first


def test_queue_counts_past_the_cap_are_estimated_and_say_so(reviewer_client, source, monkeypatch):
    from django.db import connection

    from verifier.selectors import counts

    for i in range(30):
        queue_claim(source, ALL_REASONS[i % 2], text=f"claim {i}")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE verifier_claim")
    body = reviewer_client.get("/review/").content.decode()
    assert "30 in all" in body and "estimated" not in body
    monkeypatch.setattr(counts, "COUNT_CAP", 5)
    body = reviewer_client.get("/review/").content.decode()
    assert re.search(
        r"(about [\d,]+|more than 5) in all \(estimated; counted exactly up to 5\)", body
    )
    assert re.search(
        r'data-reason="no_evidence"[^>]*>No evidence found <span class="n" title="'
        r'(about [\d,]+|more than 5) \(estimated\)">(~[\d,]+|5\+)</span>',
        body,
    )
    # a chip under the cap stays exact
    assert re.search(
        r'data-reason="contradicted"[^>]*>Contradicted by the span <span class="n">0</span>', body
    )


def test_row_count_words():
    from verifier.selectors.counts import RowCount

    assert RowCount(53).words == "53" and RowCount(53).short == "53"
    assert RowCount(333_333, "estimate").words == "about 333,000"
    assert RowCount(33_461, "estimate").short == "~33,500"
    assert RowCount(1000, "more_than").words == "more than 1,000"
    assert RowCount(1000, "more_than").short == "1,000+"


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
    # an invalid filter lists nothing and says so, naming the field (not the default queue)
    assert "Judge&#x27;s confidence ≥ (%): enter a percentage" in response.content.decode()
    assert _row_ids(response) == []


def test_queue_rows_show_the_live_lease_holder_and_the_age(reviewer_client, workspace, source):
    held, expired, free = (queue_claim(source, "abstained", text=f"claim {i}") for i in range(3))
    other = make_user(workspace=workspace, role="reviewer")
    ReviewLease.objects.create(
        claim=held, reviewer=other, served_reason="t", expires_at="2999-01-01T00:00:00Z"
    )
    ReviewLease.objects.create(
        claim=expired, reviewer=other, served_reason="t", expires_at="2000-01-01T00:00:00Z"
    )
    body = reviewer_client.get("/review/").content.decode()
    rows = dict(re.findall(r'<tr data-claim="(claim:[a-z0-9]+)">(.*?)</tr>', body, re.S))
    lease = r'<td class="cell-meta[^"]*" data-label="Lease">'
    assert re.search(f"{lease}{other.username}</td>", rows[held.public_id])
    assert re.search(f"{lease}—</td>", rows[expired.public_id])
    assert re.search(f"{lease}—</td>", rows[free.public_id])
    assert re.search(r'<time datetime="\d{4}-\d\d-\d\dT[^"]+">0\xa0minutes</time>', body)
