"""The audit trace list in keyset pages: every trace once, newest first, with ties on
the creation instant; a capped count; of each trace's document only its policy read."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_workspace
from tests.paging_walk import walk_back, walk_forward
from verifier.models import Trace

pytestmark = pytest.mark.django_db

TRACE_LINK = re.compile(r'href="/audit/traces/([0-9a-f-]{36})/"')


def _traces(workspace, n: int) -> list[Trace]:
    instants = [timezone.now() - timedelta(hours=h) for h in (1, 2, 3)]
    traces = Trace.objects.bulk_create(
        Trace(
            workspace=workspace,
            query=f"question {i}",
            document={
                "version": 1,
                "policy": {"name": f"policy-{i}"} if i % 2 else None,
                "verification_policy": "strict" if i % 4 == 0 else None,
                "considered": [{"id": f"claim:{i}-{k}"} for k in range(50)],
            },
        )
        for i in range(n)
    )
    for i, trace in enumerate(traces):
        Trace.objects.filter(pk=trace.pk).update(created_at=instants[i % 3])
    return traces


def test_trace_pages_see_every_trace_once_newest_first(auditor_client, workspace):
    _traces(workspace, 113)
    _traces(make_workspace(slug="elsewhere"), 7)  # another workspace's: never listed
    expected = [
        str(t)
        for t in Trace.objects.filter(workspace=workspace)
        .order_by("-created_at", "-id")
        .values_list("trace_id", flat=True)
    ]
    url = reverse("audit:trace-list")
    seen, sizes, body = walk_forward(auditor_client, url, TRACE_LINK.findall)
    assert sizes == [50, 50, 13]
    assert seen == expected
    assert "Page 3 of 3 · 113 in all" in body
    back = walk_back(auditor_client, url, body, TRACE_LINK.findall)
    assert back == expected[:100]
    # an old numbered link still lands on its page
    old = auditor_client.get(reverse("audit:trace-list"), {"page": 2}).content.decode()
    assert TRACE_LINK.findall(old) == expected[50:100]


def test_the_policy_column_reads_the_policy_not_the_document(auditor_client, workspace):
    _traces(workspace, 4)  # policies: strict (0), policy-1, none (2), policy-3
    with CaptureQueriesContext(connection) as queries:
        body = auditor_client.get(reverse("audit:trace-list")).content.decode()
    assert "policy-1" in body and "policy-3" in body and "strict" in body
    listed = [q["sql"] for q in queries.captured_queries if '"verifier_trace"' in q["sql"]]
    assert listed
    for sql in listed:  # a document lists every considered claim: never read whole
        assert re.search(r'"verifier_trace"\."document"(?!\s*->)', sql) is None, sql


def test_an_unknown_cursor_shows_the_first_page(auditor_client, workspace):
    _traces(workspace, 3)
    body = auditor_client.get(
        reverse("audit:trace-list"), {"after": "12.34", "page": "9"}
    ).content.decode()
    assert len(TRACE_LINK.findall(body)) == 3
    assert "3 in all" in body
    garbage = auditor_client.get(reverse("audit:trace-list"), {"after": "x<y", "before": "1"})
    assert garbage.status_code == 200
    assert uuid.UUID(TRACE_LINK.findall(garbage.content.decode())[0])
