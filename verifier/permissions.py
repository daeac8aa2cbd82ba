"""One permission layer for the console and the API.

Every principal holds one scope: an API key its own (``ApiKey.scope``), a signed-in console
member the scope of their role in the current workspace (``ROLE_SCOPES``). Scopes are
ordered, each including the ones before it:

- ``read``  — look: pages, exports, ``GET`` endpoints, retrieval and graph queries;
- ``write`` — add work: sources, ingest jobs, claim verification, RAG audits, memory
  checks and transcripts, review decisions;
- ``admin`` — change how the workspace behaves: webhooks, verification rules.

Console views say which roles may see them (``role_required``); their unsafe methods also
need ``write`` unless the view says otherwise. API views say which scope each method needs
(``required_scopes``); by default safe methods need ``read`` and unsafe ones ``write``
(``verifier.api.permissions.ScopePermission``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase, HttpResponseRedirect
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from verifier.input_guard import same_site_path
from verifier.models import ApiScope, Role

ALL_ROLES = (Role.REVIEWER, Role.AUDITOR, Role.ADMIN)
DECIDER_ROLES = (Role.REVIEWER, Role.ADMIN)
ADMIN_ROLES = (Role.ADMIN,)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SCOPE_ORDER = (ApiScope.READ, ApiScope.WRITE, ApiScope.ADMIN)
ROLE_SCOPES = {
    Role.AUDITOR: ApiScope.READ,
    Role.REVIEWER: ApiScope.WRITE,
    Role.ADMIN: ApiScope.ADMIN,
}


def scope_allows(held: str | None, needed: str) -> bool:
    """Whether a principal holding ``held`` may do what needs ``needed``."""
    if held is None:
        return False
    return SCOPE_ORDER.index(ApiScope(held)) >= SCOPE_ORDER.index(ApiScope(needed))


def role_scope(role: str | None) -> str | None:
    return ROLE_SCOPES.get(Role(role)) if role else None


def default_scope(method: str) -> str:
    return ApiScope.READ if method.upper() in SAFE_METHODS else ApiScope.WRITE


SESSION_ENDED_PARAM = "session_ended"


def sign_in_again(request: HttpRequest) -> HttpResponseBase:
    """The answer to a console request whose session is gone (never begun, signed out,
    expired). A page asked for is the page to come back to. A form sent (a decision, a
    note) or a part of a page htmx asked for is not a page: the person comes back to the
    page they were on (htmx's ``HX-Current-URL``, else the referring page of this site),
    and the sign-in page says that the session ended. htmx is told to load the sign-in
    page in place of the whole page (``HX-Redirect``), not to draw it inside the item."""
    htmx = getattr(request, "htmx", None)
    if request.method in SAFE_METHODS and not htmx:
        return redirect_to_login(request.get_full_path())
    # the input guard's rule for "a page of this site", as every way back reads it
    page = (htmx.current_url if htmx else None) or ""
    back = (
        same_site_path(request, page)
        or same_site_path(request, request.headers.get("Referer", ""))
        or "/"
    )
    login = f"{reverse('login')}?{urlencode({'next': back, SESSION_ENDED_PARAM: '1'})}"
    if htmx:
        return HttpResponseClientRedirect(login)
    return HttpResponseRedirect(login)


def signed_in_required(
    view: Callable[..., HttpResponseBase],
) -> Callable[..., HttpResponseBase]:
    """``login_required`` for console views with ``sign_in_again``'s way back: a form
    sent while signed out comes back to the page it was sent from, never to an address
    that only takes a POST (the workspace switch)."""

    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return sign_in_again(request)
        return view(request, *args, **kwargs)

    return wrapped


def no_workspace_message(request: HttpRequest) -> str:
    """The refusal for a signed-in person who is a member of no workspace, in the
    overview's words: staff can make one there, everyone else asks an admin."""
    if getattr(request.user, "is_staff", False):
        return (
            "You are not a member of any workspace yet. As a staff user you can make one: "
            "the overview lists the steps."
        )
    return "You are not a member of any workspace yet. Ask an admin to add you."


def role_required(
    *roles: str, unsafe_scope: str = ApiScope.WRITE
) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """Signed-in member of the current workspace with one of ``roles``, else 403; a POST
    (or other unsafe method) also needs ``unsafe_scope`` (``write`` unless the view only
    changes the member's own preferences)."""
    allowed = set(roles or ALL_ROLES)

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return sign_in_again(request)
            membership = getattr(request, "membership", None)
            if membership is None:
                # a member of no workspace has no role to name: say what to do instead
                raise PermissionDenied(no_workspace_message(request))
            if membership.role not in allowed:
                # a form sent (a decision, a note) is an action, not a page
                what = "page" if request.method in SAFE_METHODS else "action"
                raise PermissionDenied(f"Your role in this workspace does not allow this {what}.")
            if request.method not in SAFE_METHODS and not scope_allows(
                role_scope(membership.role), unsafe_scope
            ):
                raise PermissionDenied("Your role in this workspace is read-only here.")
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
