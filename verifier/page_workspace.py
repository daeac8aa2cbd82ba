"""A console request sent from a page of one workspace while the session is in another.

The current workspace is the session's, shared by every tab: switching it in one tab
(or an admin taking the member out of it) leaves the other tabs showing the workspace
they were opened in. A request from such a page would act in, or list, the other
workspace: a reason chip swapped the other workspace's queue in under this one's name,
a decision on this workspace's claim answered "no longer there", a key made on the API
keys page was made in the other workspace.

So each page says which workspace it shows: htmx sends it in a header
(``hx-headers`` on ``<body>``), and ``static/js/console.js`` adds it to a form sent
without htmx as a field, which is taken out of ``request.POST`` here (no view reads it).
A request whose page shows another workspace than the current one does nothing: it
answers 412 with a page that says what changed (``#refusal-message``, read by
console.js into its alert when htmx asked) and offers to switch back and return to the
page. A request that carries neither (a browser without script, the API) is not checked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from verifier.api.paths import is_api_path
from verifier.http import WorkspaceRequest
from verifier.input_guard import same_site_path
from verifier.selectors.workspaces import membership_get

if TYPE_CHECKING:
    from django.http.request import _ImmutableQueryDict

PAGE_WORKSPACE_HEADER = "X-Spanproof-Workspace"
PAGE_WORKSPACE_FIELD = "spanproof_page_workspace"
# The ways out of a page of the other workspace are never refused.
UNCHECKED_ROUTES = ("workspace-switch", "logout", "login")


def _page_path(request: HttpRequest) -> str:
    """The page the request was sent from (htmx's current URL, else the referring
    page), as a path of this site; "/" when neither is one."""
    htmx = getattr(request, "htmx", None)
    for url in (htmx.current_url if htmx else None, request.headers.get("Referer")):
        path = same_site_path(request, url) if url else None
        if path is not None:
            return path
    return "/"


def _page_workspace(request: HttpRequest) -> str:
    """The slug of the workspace the page showed, taken out of a form's fields."""
    slug = request.headers.get(PAGE_WORKSPACE_HEADER, "")
    if request.method == "POST" and PAGE_WORKSPACE_FIELD in request.POST:
        fields = request.POST.copy()
        slug = fields.pop(PAGE_WORKSPACE_FIELD, [""])[-1] or slug
        fields._mutable = False
        request.POST = cast("_ImmutableQueryDict", fields)
    return slug.strip()


def workspace_changed(request: WorkspaceRequest, page_slug: str) -> HttpResponse:
    """412: the page shows ``page_slug``'s workspace, the session is in another one."""
    page_membership = membership_get(user=request.user, slug=page_slug)
    back = _page_path(request)
    context = {
        "page_workspace": page_membership.workspace if page_membership else None,
        "back": back,
        "switch_back": (
            f"{reverse('workspace-switch')}?{urlencode({'next': back})}" if page_membership else ""
        ),
    }
    return render(request, "errors/workspace_changed.html", context, status=412)


class PageWorkspaceMiddleware:
    """Refuse (412) a request from a page of another workspace than the current one.

    After ``verifier.middleware.WorkspaceMiddleware`` (the current workspace) and
    before the views."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.unchecked: frozenset[str] | None = None

    def __call__(self, request: WorkspaceRequest) -> HttpResponse:
        if self.unchecked is None:
            self.unchecked = frozenset(reverse(name) for name in UNCHECKED_ROUTES)
        if is_api_path(request.path):
            return self.get_response(request)
        page_slug = _page_workspace(request)
        user = getattr(request, "user", None)
        if (
            page_slug
            and user is not None
            and user.is_authenticated
            and request.path not in self.unchecked
            and page_slug != (request.workspace.slug if request.workspace else "")
        ):
            return workspace_changed(request, page_slug)
        return self.get_response(request)
