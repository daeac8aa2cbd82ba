from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from verifier.http import WorkspaceRequest
from verifier.selectors.workspaces import membership_get

SESSION_WORKSPACE_KEY = "workspace_slug"


class WorkspaceMiddleware:
    """Attach the signed-in user's current workspace and membership to the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: WorkspaceRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        membership = None
        if user is not None and user.is_authenticated:
            membership = membership_get(
                user=user, slug=request.session.get(SESSION_WORKSPACE_KEY)
            ) or membership_get(user=user)
        request.membership = membership
        request.workspace = membership.workspace if membership else None
        return self.get_response(request)
