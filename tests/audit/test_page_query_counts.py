"""Query counts of the audit and ingest pages are pinned and do not grow with the rows
shown: the claim list, the trace list and a trace, the quality page, the ingest page and
a job's page each run the same queries for a few rows as for many."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.audit.conftest import QUOTE, judge
from tests.audit.test_traces_quality import _report
from tests.factories import make_binding, make_claim
from verifier.models import IngestJob, Trace, TraceClaim

pytestmark = pytest.mark.django_db

# Each page: session, user, membership (3), then its own reads: a list page its count
# and its page of rows (2); a trace the trace and its claims (2); the quality page the
# job count, the page of jobs, the benchmark-run count and the trend (4); a job page the
# job (1).
CLAIM_LIST_MAX_QUERIES = 5
TRACE_LIST_MAX_QUERIES = 5
TRACE_DETAIL_MAX_QUERIES = 5
# + the page's jobs by state now (one grouped query); + reviewers and the judge (3: with
# the judge, between reviewers, the calibrators' curve); + the decisions undos took back
# (one query, by the one undo rule)
QUALITY_MAX_QUERIES = 12
INGEST_PAGE_MAX_QUERIES = 5
JOB_PAGE_MAX_QUERIES = 5  # + the job's claims by state now


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(captured)


def _claims(source, n: int, offset: int = 0) -> list:
    claims = []
    for i in range(offset, offset + n):
        claim = make_claim(source, f"{QUOTE} (station {i})")
        judge(claim, binding=make_binding(claim, QUOTE))
        claims.append(claim)
    return claims


def _trace_with(workspace, claims) -> Trace:
    trace = Trace.objects.create(
        workspace=workspace,
        query="how does the delta grow?",
        document={"version": 1, "policy": {"name": "strict"}, "seeds": []},
    )
    for i, claim in enumerate(claims):
        TraceClaim.objects.create(
            trace=trace,
            claim=claim,
            included=i % 2 == 0,
            exclusion_reason="" if i % 2 == 0 else "verification_gate",
            verification_state=claim.state,
        )
    return trace


def _jobs(workspace, n: int) -> list[IngestJob]:
    return [
        IngestJob.objects.create(
            workspace=workspace, status="succeeded", quality_report=_report(90, 8, 2, 1)
        )
        for _ in range(n)
    ]


def test_the_claim_list_does_not_grow_with_its_rows(auditor_client, source):
    _claims(source, 2)
    few = _queries(auditor_client, reverse("audit:claim-list"))
    _claims(source, 20, offset=2)
    many = _queries(auditor_client, reverse("audit:claim-list"))
    assert few == many <= CLAIM_LIST_MAX_QUERIES


def test_the_trace_pages_do_not_grow_with_their_rows(auditor_client, workspace, source):
    few_claims = _claims(source, 2)
    small = _trace_with(workspace, few_claims)
    few_list = _queries(auditor_client, reverse("audit:trace-list"))
    few_detail = _queries(auditor_client, reverse("audit:trace-detail", args=[small.trace_id]))
    claims = _claims(source, 20, offset=2)
    big = _trace_with(workspace, claims)
    for _ in range(10):
        _trace_with(workspace, claims[:3])
    many_list = _queries(auditor_client, reverse("audit:trace-list"))
    many_detail = _queries(auditor_client, reverse("audit:trace-detail", args=[big.trace_id]))
    assert few_list == many_list <= TRACE_LIST_MAX_QUERIES
    assert few_detail == many_detail <= TRACE_DETAIL_MAX_QUERIES


def test_the_quality_page_does_not_grow_with_the_jobs(auditor_client, workspace):
    _jobs(workspace, 2)
    few = _queries(auditor_client, reverse("audit:quality"))
    _jobs(workspace, 20)
    many = _queries(auditor_client, reverse("audit:quality"))
    assert few == many <= QUALITY_MAX_QUERIES


def test_the_ingest_pages_do_not_grow_with_the_jobs(auditor_client, workspace):
    first = _jobs(workspace, 2)[0]
    few_list = _queries(auditor_client, reverse("ingest:upload"))
    few_job = _queries(auditor_client, reverse("ingest:job", args=[first.pk]))
    _jobs(workspace, 20)
    many_list = _queries(auditor_client, reverse("ingest:upload"))
    many_job = _queries(auditor_client, reverse("ingest:job", args=[first.pk]))
    assert few_list == many_list <= INGEST_PAGE_MAX_QUERIES
    assert few_job == many_job <= JOB_PAGE_MAX_QUERIES
