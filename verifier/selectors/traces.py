"""Reads of provenance traces, always scoped to the caller's workspace."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.db.models.fields.json import KeyTransform
from django.http import Http404, QueryDict

from verifier.models import Claim, EvidenceBinding, Trace, Workspace
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
    caller: dict[str, str] | None = None


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
    policy and the caller are read (a document lists every claim the call considered)."""
    values = (
        newest_first(traces, table="verifier_trace", after=after, before=before)
        .annotate(
            verification_policy=KeyTransform("verification_policy", "document"),
            policy=KeyTransform("policy", "document"),
            caller=KeyTransform("caller", "document"),
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
            "caller",
        )[offset : offset + limit]
    )
    rows = [
        TraceRow(
            pk,
            trace_id,
            created_at,
            operation,
            query,
            domain_pack,
            trace_policy({"verification_policy": vp, "policy": p}),
            caller if isinstance(caller, dict) else None,
        )
        for pk, trace_id, created_at, operation, query, domain_pack, vp, p, caller in values
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


def trace_policy(document: Mapping[str, Any]) -> Any:
    """The verification policy a trace document records (None when it records none)."""
    for key in ("verification_policy", "policy"):
        if document.get(key) not in (None, ""):
            return document[key]
    return None


def claims_bound_spans(claims: Sequence[Any]) -> list[dict[str, Any]]:
    """The active bound span of each claim, in one query (no source text is read): the
    span a trace says the claim was checked against."""
    rows = (
        EvidenceBinding.objects.filter(claim__in=[c.pk for c in claims], is_active=True)
        .order_by("claim_id")
        .values(
            "claim__public_id",
            "source_version__source__ref",
            "source_version__number",
            "source_hash",
            "start",
            "end",
            "quote",
            "match",
        )
    )
    return [
        {
            "claim_id": row["claim__public_id"],
            "source_ref": row["source_version__source__ref"],
            "source_version": row["source_version__number"],
            "source_hash": row["source_hash"],
            "start": row["start"],
            "end": row["end"],
            "quote": row["quote"],
            "match": row["match"],
        }
        for row in rows
    ]


def claims_states_now(claims: Sequence[Any]) -> dict[int, str]:
    """{claim pk: its stored state} (one query): what a trace records of claims whose
    objects in hand may predate the state writer's last change."""
    rows = Claim.objects.filter(pk__in=[c.pk for c in claims]).values_list("pk", "state")
    return dict(rows)


@dataclass(frozen=True)
class TraceStep:
    """One timed step of a trace, with its children (the Traces page draws the tree).
    ``detail`` is (name, value) pairs, not a dict: a template reads ``detail.items`` as
    the key ``items`` first, and a step may record a count under that very name."""

    name: str
    ms: float | None
    detail: tuple[tuple[str, Any], ...]
    steps: list[TraceStep]


def trace_steps(document: Mapping[str, Any]) -> tuple[list[TraceStep], float | None]:
    """The trace's steps as a tree and its total time in milliseconds. A door's trace
    stores its tree (``steps``); a retrieve's stores flat ``timing`` (``<step>_ms``, in
    the order the steps ran), shown as one level."""
    raw_timing = document.get("timing")
    timing: Mapping[str, Any] = raw_timing if isinstance(raw_timing, Mapping) else {}
    total = timing.get("total_ms") if isinstance(timing.get("total_ms"), int | float) else None

    def build(node: Any) -> TraceStep | None:
        if not isinstance(node, Mapping) or not isinstance(node.get("name"), str):
            return None
        ms = node.get("ms")
        children = [s for s in (build(c) for c in node.get("steps") or []) if s is not None]
        raw_detail = node.get("detail")
        detail: Mapping[str, Any] = raw_detail if isinstance(raw_detail, Mapping) else {}
        return TraceStep(
            node["name"],
            ms if isinstance(ms, int | float) else None,
            tuple((str(key), value) for key, value in detail.items()),
            children,
        )

    if isinstance(document.get("steps"), list):
        steps = [s for s in (build(node) for node in document["steps"]) if s is not None]
        return steps, total
    flat = [
        TraceStep(key.removesuffix("_ms"), value, (), [])
        for key, value in timing.items()
        if key != "total_ms" and isinstance(value, int | float)
    ]
    return flat, total
