"""What a 404 and a 405 say: the API's JSON error body under the API's paths
(``verifier.api.paths``), a page in the console's layout everywhere else.

Django answers a method a view does not serve (``require_POST``, ``LogoutView``) with an
empty 405, which a browser shows as a broken page; ``MethodNotAllowedMiddleware`` gives
that answer a body and keeps its status and ``Allow`` header. DRF's views already answer
their own 405 with the JSON body, which the middleware leaves alone."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve

from config.statement_timeout import (
    RETRY_AFTER_SECONDS,
    statement_timeout_message,
)
from verifier.api.errors import error_body, statement_timeout_body
from verifier.api.paths import is_api_path
from verifier.console_nav import ENTRY_POINTS, entry_containing
from verifier.input_guard import same_site_path

API_DOCS_PATH = "/connect/v1/docs"


def _resolves(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def api_not_found(request: HttpRequest) -> JsonResponse:
    """The API's 404 for a path no route answers. A known route asked for with a trailing
    slash (the API's routes have none) is named in the message."""
    path = request.path
    suggested = path.rstrip("/")
    if suggested != path and is_api_path(suggested) and _resolves(request.path_info.rstrip("/")):
        message = (
            f"There is no endpoint at {path}; the endpoint is {suggested}, "
            "without the trailing slash."
        )
        return JsonResponse(error_body("not_found", message, {"path": suggested}), status=404)
    message = f"There is no endpoint at {path}; the endpoints are listed at {API_DOCS_PATH}."
    return JsonResponse(error_body("not_found", message), status=404)


def statement_timeout_response(request: HttpRequest) -> HttpResponse:
    """``handler500``'s answer when the database cancelled one of the request's
    statements (the web requests' statement timeout, ``config/statement_timeout.py``)
    outside an API view's own handler (a console page, a middleware's query): a 503 with
    ``Retry-After``, the API's JSON ``statement_timeout`` body under the API's paths, the
    console's 503 page elsewhere (it needs neither the session nor the database)."""
    response: HttpResponse
    if is_api_path(request.path):
        response = JsonResponse(statement_timeout_body(), status=503)
    else:
        page = render_to_string("errors/503.html", {"message": statement_timeout_message()})
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _page_above(path: str) -> str:
    """The nearest console address above ``path`` that a route answers (``/`` at last):
    where a form that posts to ``path`` most likely lives."""
    parts = [part for part in path.split("/") if part]
    while parts:
        parts.pop()
        candidate = "/" + "".join(f"{part}/" for part in parts)
        if _resolves(candidate):
            return candidate
    return "/"


def _open_to(request: HttpRequest, path: str) -> bool:
    """Whether the member's role may open ``path``, as far as the menu tells: the most
    specific menu entry containing it ("/audit/rules/1/" is under Rule sets, which only
    admins see). A path under no entry is taken as open."""
    membership = getattr(request, "membership", None)
    entry = entry_containing(path)
    return entry is None or (membership is not None and membership.role in entry.roles)


def _page_name(path: str) -> str:
    """A console address in words: its menu entry ("API keys"), else "the page above"."""
    named = [e for e in ENTRY_POINTS if e.path == path]
    return named[0].label if named else "the page above"


def _came_from(request: HttpRequest) -> str | None:
    """The page the request came from (its ``Referer``), when it is on this site (the
    input guard's rule, ``same_site_path``) and is not the address itself."""
    came_from = same_site_path(request, request.headers.get("Referer", ""))
    if came_from is None or urlsplit(came_from).path == request.path:
        return None
    return came_from


def method_not_allowed_page(request: HttpRequest, allowed: list[str]) -> str:
    """The console's 405 page: what happened, in words, and a way back."""
    came_from = _came_from(request)
    back = came_from or _page_above(request.path)
    if came_from is None and not _open_to(request, back):
        back = "/"
    if came_from is not None:
        back_label = "Back to the page you came from"
    elif back == "/":
        back_label = "Back to the overview"
    else:
        back_label = f"Go to {_page_name(back)}"
    context = {
        "path": request.path,
        "method": request.method,
        "allowed": allowed,
        "form_only": "GET" not in allowed and request.method in ("GET", "HEAD"),
        "back": back,
        "back_label": back_label,
    }
    return render_to_string("errors/405.html", context, request=request)


class MethodNotAllowedMiddleware:
    """Fill an empty 405's body: the API's ``method_not_allowed`` error, or the console's
    405 page. The status and every header (``Allow`` first) stay as the view set them."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.streaming:
            return response
        api = is_api_path(request.path)
        # DRF's own JSON 405 stays; the schema's (rendered as YAML) and the docs page's
        # (HTML) are replaced under the API's paths, as an empty one is everywhere.
        if response.content and not (
            api and not response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        allowed = [method.strip() for method in response.get("Allow", "").split(",")]
        allowed = [method for method in allowed if method]
        if api:
            body = error_body("method_not_allowed", f'Method "{request.method}" not allowed.')
            response.content = json.dumps(body).encode()
            response["Content-Type"] = "application/json"
        else:
            response.content = method_not_allowed_page(request, allowed).encode()
            response["Content-Type"] = "text/html; charset=utf-8"
        return response


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a form sent with a missing or out-of-date security token (a
    page opened before the last sign-in, a form kept open for days) is refused, and says
    so in words with a way back, instead of Django's bare page. Nothing was done."""
    if is_api_path(request.path):
        body = error_body(
            "csrf_failed",
            "The request's CSRF token is missing or out of date (a signed-in browser "
            "session must send it); API keys need none.",
        )
        return JsonResponse(body, status=403)
    context = {"back": _came_from(request) or request.path, "reason": reason}
    return HttpResponse(render_to_string("errors/csrf.html", context, request=request), status=403)
