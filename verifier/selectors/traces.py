"""Reads of provenance traces, always scoped to the caller's workspace."""

from __future__ import annotations

import uuid

from django.http import Http404

from verifier.models import Trace, Workspace

TRACE_NOT_FOUND = "No such trace in this workspace (traces are kept for 90 days)."


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
