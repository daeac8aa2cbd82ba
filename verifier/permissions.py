"""Role rules for console views: reviewers and admins decide, auditors read, admins tune."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse

from verifier.models import Role

ALL_ROLES = (Role.REVIEWER, Role.AUDITOR, Role.ADMIN)
DECIDER_ROLES = (Role.REVIEWER, Role.ADMIN)
ADMIN_ROLES = (Role.ADMIN,)


def role_required(
    *roles: str,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Signed-in member of the current workspace with one of ``roles``, else 403."""
    allowed = set(roles or ALL_ROLES)

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            membership = getattr(request, "membership", None)
            if membership is None or membership.role not in allowed:
                raise PermissionDenied("Your role in this workspace does not allow this page.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
