"""The workspace of an API request: the key's, or the signed-in console member's."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.request import Request

from verifier.models import Workspace


def request_workspace(request: Request) -> Workspace:
    workspace = getattr(request.user, "workspace", None)
    if isinstance(workspace, Workspace):
        return workspace
    workspace = getattr(request._request, "workspace", None)
    if isinstance(workspace, Workspace):
        return workspace
    raise exceptions.PermissionDenied("You are not a member of any workspace.")


def request_actor(request: Request) -> Any:
    """The signed-in person behind an API request (recorded as the actor of what it
    writes), or None for an API key: a key's user is not a stored user."""
    return request.user if getattr(request.user, "pk", None) else None
