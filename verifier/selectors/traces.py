"""Reads of provenance traces, always scoped to the caller's workspace."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform
from django.http import Http404, QueryDict

from verifier.models import Trace, TraceClaim, Workspace
from verifier.selectors.counts import row_counts
from verifier.selectors.paging import KeysetPage, NewestFirstCursor, keyset_page, newest_first

TRACE_NOT_FOUND = "No such trace in this workspace (traces are kept for 90 days)."


@dataclass(frozen=True)
class TraceRow:
    """One row of the trace list; ``policy`` as :func:`trace_policy` reads it."""

    id: int
    trace_id: uuid.UUID
    created_at: datetime
    operation: str
    query: str
    domain_pack: str
    policy: Any


TRACE_LIST_PAGE_SIZE = 50


def _trace_rows(
    traces: QuerySet[Trace],
    *,
    limit: int,
    after: NewestFirstCursor | None,
    before: NewestFirstCursor | None,
    offset: int,
) -> list[TraceRow]:
    """Up to ``limit`` traces newest first after ``after`` (or the last ones before
    ``before``): one range of ``trace_ws_created``. Of each trace's document only the
    policy is read (a document lists every claim the call considered)."""
    values = (
        newest_first(traces, table="verifier_trace", after=after, before=before)
        .annotate(
            verification_policy=KeyTransform("verification_policy", "document"),
            policy=KeyTransform("policy", "document"),
        )
        .values_list(
            "id",
            "trace_id",
            "created_at",
            "operation",
            "query",
            "domain_pack",
            "verification_policy",
            "policy",
        )[offset : offset + limit]
    )
    rows = [
        TraceRow(*head, trace_policy({"verification_policy": vp, "policy": p}))
        for *head, vp, p in values
    ]
    return rows[::-1] if before is not None else rows


def trace_page(
    *, workspace: Workspace, params: QueryDict, page_size: int = TRACE_LIST_PAGE_SIZE
) -> KeysetPage:
    """One keyset page of the workspace's traces, newest first, with their count: exact
    up to ``COUNT_CAP``, the planner's estimate past it (every retrieve writes a trace,
    so this list is the first to reach millions)."""
    traces = Trace.objects.filter(workspace=workspace)
    (count,) = row_counts([traces])
    return keyset_page(
        params,
        page_size=page_size,
        count=count,
        parse=NewestFirstCursor.parse,
        fetch=lambda limit, after, before, offset: _trace_rows(
            traces, limit=limit, after=after, before=before, offset=offset
        ),
        token=lambda row: NewestFirstCursor(row.created_at, row.id).token,
    )


def trace_get(*, workspace: Workspace, trace_id: str) -> Trace:
    """The trace, or the same 404 for a malformed id, a missing one and another
    workspace's."""
    try:
        parsed = uuid.UUID(str(trace_id))
    except (ValueError, AttributeError):
        raise Http404(TRACE_NOT_FOUND) from None
    trace = Trace.objects.filter(workspace=workspace, trace_id=parsed).first()
    if trace is None:
        raise Http404(TRACE_NOT_FOUND)
    return trace


def trace_considered(*, trace: Trace) -> list[TraceClaim]:
    """The claims the trace considered: included first, then by exclusion reason."""
    return list(
        trace.considered.select_related("claim").order_by("-included", "exclusion_reason", "id")
    )


def trace_policy(document: Mapping[str, Any]) -> Any:
    """The verification policy a trace document records (None when it records none)."""
    for key in ("verification_policy", "policy"):
        if document.get(key) not in (None, ""):
            return document[key]
    return None
