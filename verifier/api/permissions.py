"""The API side of ``verifier.permissions``: the caller's scope against the view's need."""

from __future__ import annotations

from typing import Any

from rest_framework import permissions, status
from rest_framework.request import Request

from verifier.api.authentication import ApiKeyUser
from verifier.api.errors import ApiError
from verifier.models import ApiScope
from verifier.permissions import SCOPE_ORDER, default_scope, role_scope, scope_allows
from verifier.vocabulary import label


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
            # the message in words; the codes, which clients branch on, in details
            raise ApiError(
                "permission_denied",
                scope_refusal_message(
                    needed=needed, held=held, key=isinstance(request.user, ApiKeyUser)
                ),
                status_code=status.HTTP_403_FORBIDDEN,
                details={
                    "needed_scope": ApiScope(needed).value,
                    "held_scope": ApiScope(held).value if held else None,
                },
            )
        return True


def _scope_label(scope: str) -> str:
    """A scope's word on the API keys page ("admin"), not its repr."""
    return label("api_key_scope", ApiScope(scope).value).lower()


def _scope_words(scope: str) -> str:
    """ "the admin scope, which includes read and write": its word, and those it includes."""
    below = [_scope_label(s) for s in SCOPE_ORDER[: SCOPE_ORDER.index(ApiScope(scope))]]
    if not below:
        return f"the {_scope_label(scope)} scope"
    return f"the {_scope_label(scope)} scope, which includes {' and '.join(below)}"


def scope_refusal_message(*, needed: str, held: str | None, key: bool) -> str:
    """The 403's message: the scope needed and the one held, in the API keys page's words."""
    holder = "API key" if key else "role"
    has = f"has the {_scope_label(held)} scope" if held else "has no scope"
    return (
        f"This operation needs {'an' if key else 'a'} {holder} with {_scope_words(needed)}; "
        f"this {holder} {has}."
    )
