"""The workspace of an API request: the key's, or the signed-in console member's."""

from __future__ import annotations

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
