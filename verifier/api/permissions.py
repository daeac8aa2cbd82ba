"""The API side of ``verifier.permissions``: the caller's scope against the view's need."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions
from rest_framework.request import Request

from verifier.api.authentication import ApiKeyUser
from verifier.models import ApiScope
from verifier.permissions import default_scope, role_scope, scope_allows


def request_scope(request: Request) -> str | None:
    """The scope of an API key, or of a signed-in member's role in the current workspace."""
    user = request.user
    if isinstance(user, ApiKeyUser):
        return str(user.api_key.scope)
    membership = getattr(request._request, "membership", None)
    return role_scope(membership.role) if membership is not None else None


def view_scope(view: Any, method: str) -> str:
    """What ``method`` on ``view`` needs: ``view.required_scopes[method]``, else ``read``
    for safe methods and ``write`` for the rest."""
    declared: dict[str, str] = getattr(view, "required_scopes", {})
    return declared.get(method.upper(), default_scope(method))


def _serves(view: Any, method: str) -> bool:
    """Whether ``view`` has a handler for ``method`` (else DRF answers 405)."""
    name = method.lower()
    return name in getattr(view, "http_method_names", ()) and hasattr(view, name)


class ScopePermission(permissions.BasePermission):
    """Authenticated, and holding the scope the view needs for this method (else 403)."""

    message = "This API key or console role does not allow this operation."

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        if not _serves(view, request.method or "GET"):
            # a method the route does not serve is a 405 (with Allow) for every caller:
            # a 403 would tell the client a broader key could do it
            return True
        needed = view_scope(view, request.method or "GET")
        held = request_scope(request)
        if not scope_allows(held, needed):
            # a role's scope is an ApiScope member, whose repr is not its value
            held_text = repr(ApiScope(held).value) if held else "none"
            self.message = (
                f"This operation needs the {ApiScope(needed).value!r} scope; "
                f"this {'API key' if isinstance(request.user, ApiKeyUser) else 'role'} "
                f"has {held_text}."
            )
            return False
        return True
