"""Writes of the workspace's activity log (``WorkspaceEvent``): one row per change of who
may do what or how claims are decided, inside the transaction of the change itself, so
the log never names a change that did not happen nor misses one that did. The actor is
the request's caller (``verifier.trace_caller``): the member or the API key; none from a
command or a task."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

from verifier.models import ActivityAction, Workspace, WorkspaceEvent
from verifier.trace_caller import caller_document

TARGET_CHARS = 200


def activity_record(
    *,
    workspace: Workspace,
    action: ActivityAction,
    target: str,
    details: dict[str, Any] | None = None,
) -> WorkspaceEvent:
    return WorkspaceEvent.objects.create(
        workspace=workspace,
        action=action,
        actor=caller_document(),
        target=target[:TARGET_CHARS],
        details=details or {},
    )


def url_shown(url: str) -> str:
    """A webhook's address as the log keeps it: without a user, password, query or
    fragment, which may carry a token."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
