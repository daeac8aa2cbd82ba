"""Reads of provenance traces, always scoped to the caller's workspace."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django.db.models import QuerySet
from django.http import Http404

from verifier.models import Trace, TraceClaim, Workspace

TRACE_NOT_FOUND = "No such trace in this workspace (traces are kept for 90 days)."


def trace_list(*, workspace: Workspace) -> QuerySet[Trace]:
    """The workspace's traces, newest first."""
    return Trace.objects.filter(workspace=workspace).order_by("-created_at", "-id")


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
