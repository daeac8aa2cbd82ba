"""Every console page of the nav, the detail pages and the /connect/v1 list endpoints run
the same queries, as a signed-in admin, in a workspace of a few rows of each kind as in
one of many: claims with bindings, machine verdicts and reviewers' decisions, sources
with several versions, relations, traces, ingest jobs, members and activity rows.
(``tests/audit/test_page_query_counts.py`` pins the claim, trace, quality and ingest
pages against their own rows; ``bench/console_pages.py`` times them at 100,000 claims.)
"""

from __future__ import annotations

import itertools

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from audit.services import rule_set_builtin_ensure
from tests.audit.conftest import QUOTE, judge
from tests.audit.test_page_query_counts import _jobs, _trace_with
from tests.factories import make_binding, make_claim, make_source, make_user
from tests.verifier.api.conftest import client_for
from verifier.models import (
    ActivityAction,
    Claim,
    ClaimRelation,
    IngestJob,
    Source,
    Trace,
    WorkspaceEvent,
)
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

# The most queries each page may run (session, user and membership included), whatever
# the workspace holds: what each ran when pinned, a little over where a page's count
# depends on which panels show (a live lease, a calibrator).
MAX_QUERIES = {
    "/": 9,
    "/review/": 10,
    "/review/?mine=true": 10,
    "/review/relations/": 11,
    "/review/decisions/": 12,
    "/audit/sources/": 5,
    "/audit/activity/": 6,
    "/audit/members/": 5,
    "/audit/rules/": 11,
    "/audit/calibrators/": 8,
    "/audit/api-keys/": 5,
    "/audit/webhooks/": 4,
    "/verify/": 6,
    "claim": 19,
    "review-item": 8,
    "source": 11,
    "source-diff": 9,
    "rule-set": 6,
    "/connect/v1/claims": 8,
    "/connect/v1/sources": 4,
    "/connect/v1/calibrators": 4,
    "/connect/v1/relations": 4,
    "/connect/v1/activity": 4,
}


def _grow(workspace, n: int, start: int) -> None:
    """``n`` more of everything: sources of two versions with a claim each (bound,
    judged, half of them decided by a reviewer), relations between them, traces, jobs,
    members and activity rows."""
    reviewer = make_user(f"decider{start}", workspace=workspace, role="reviewer")
    claims = []
    for i in range(start, start + n):
        source = make_source(workspace, ref=f"source:scale_{i}")
        text = source.versions.get().text
        source_upsert(workspace=workspace, ref=source.ref, text=f"{text} Rev {i}.", title="Doc")
        claim = make_claim(source, f"{QUOTE} (station {i})")
        judge(claim, label="contradicted", binding=make_binding(claim, QUOTE))
        if i % 2:
            judge(claim, label="entailed", confidence=1.0, reviewer=reviewer)
        claims.append(claim)
        make_user(f"member{i}", workspace=workspace, role=("auditor", "reviewer")[i % 2])
        WorkspaceEvent.objects.create(
            workspace=workspace,
            action=ActivityAction.MEMBER_ADDED,
            actor={"kind": "member", "name": "admin"},
            target=f"member{i}",
        )
    for a, b in itertools.pairwise(claims):
        ClaimRelation.objects.create(
            workspace=workspace, from_claim=a, to_claim=b, kind="supports", needs_review=True
        )
    for _ in range(n):
        _trace_with(workspace, claims)
    _jobs(workspace, n)


def _urls(workspace) -> dict[str, str]:
    claim = Claim.objects.filter(workspace=workspace).order_by("pk").first()
    source = Source.objects.filter(workspace=workspace).order_by("pk").first()
    assert claim is not None and source is not None
    return {
        **{path: path for path in MAX_QUERIES if path.startswith("/")},
        "claim": f"/audit/claims/{claim.public_id}/",
        "review-item": f"/review/item/{claim.public_id}/",
        "source": f"/audit/sources/{source.pk}/",
        "source-diff": f"/audit/sources/{source.pk}/diff/?from=1&to=2",
        "rule-set": f"/audit/rules/{rule_set_builtin_ensure().pk}/",
    }


def _counts(console, api, urls: dict[str, str]) -> dict[str, int]:
    counts = {}
    for name, url in urls.items():
        client = api if url.startswith("/connect/") else console
        client.get(url)  # a first visit may take a lease or warm a cache
        with CaptureQueriesContext(connection) as captured:
            response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
        counts[name] = len(captured)
    return counts


def test_no_page_runs_more_queries_as_the_workspace_grows(admin_client_ws, workspace):
    api = client_for(workspace)
    _grow(workspace, 2, start=0)
    few = _counts(admin_client_ws, api, _urls(workspace))
    _grow(workspace, 12, start=2)
    many = _counts(admin_client_ws, api, _urls(workspace))
    assert Trace.objects.filter(workspace=workspace).count() == 14
    assert IngestJob.objects.filter(workspace=workspace).count() == 14
    grew = {name: (few[name], many[name]) for name in few if many[name] != few[name]}
    assert grew == {}
    over = {name: n for name, n in many.items() if n > MAX_QUERIES[name]}
    assert over == {}
