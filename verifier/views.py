"""Console shell views: home, workspace switch, /healthz and the error pages."""

from __future__ import annotations

import sys

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.views.decorators.http import require_GET, require_POST

from config.statement_timeout import statement_timed_out
from verifier import vocabulary
from verifier.api.errors import error_body
from verifier.api.paths import is_api_path
from verifier.error_pages import api_not_found, statement_timeout_response
from verifier.input_guard import page_sent_from, same_site_path
from verifier.middleware import SESSION_WORKSPACE_KEY
from verifier.outage import RETRY_AFTER_SECONDS, UNAVAILABLE_MESSAGE, database_unreachable
from verifier.permissions import signed_in_required
from verifier.request_id import current_request_id
from verifier.selectors.health import health_report
from verifier.selectors.workspaces import membership_get


@signed_in_required
@require_GET
def glossary(request: HttpRequest) -> HttpResponse:
    """The words the console uses and every code it shows, from the one vocabulary."""
    sections = [
        {"kind": kind, "title": vocabulary.KIND_TITLES[kind], "terms": list(terms.values())}
        for kind, terms in vocabulary.KINDS.items()
    ]
    return render(
        request,
        "glossary.html",
        {"sections": sections, "words": list(vocabulary.WORDS.values())},
    )


@signed_in_required
@require_POST
def workspace_switch(request: HttpRequest) -> HttpResponse:
    slug = request.POST.get("workspace", "")
    if membership_get(user=request.user, slug=slug) is not None:
        request.session[SESSION_WORKSPACE_KEY] = slug
    # "Switch back" on a page refused for showing another workspace (verifier.page_workspace)
    # returns to that page: an address of this site only.
    back = same_site_path(request, request.GET.get("next", ""))
    return redirect(back) if back is not None else redirect("home")


@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says: send them to the icon."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=200 if report["ok"] else 503)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/403.html", {"message": str(exception or "")}, status=403)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler400``: a request Django refused before any view read it — more form fields
    than ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` (a page of 1,000 ticked rows), a body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, another suspicious request. The API answers its JSON
    error body, the console its 400 page with the cause in words and the way back (it got
    Django's bare "Bad Request (400)")."""
    if isinstance(exception, TooManyFieldsSent):
        code, detail = (
            "malformed_request",
            (f"The form sent more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields"),
        )
        hint = "Choose fewer rows or items at once (or the whole filter, where offered)."
    elif isinstance(exception, RequestDataTooBig):
        code, detail = (
            "payload_too_large",
            (f"The request is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes"),
        )
        hint = "Send less at once."
    else:
        code, detail, hint = "malformed_request", "The request could not be read", ""
    if is_api_path(request.path):
        body = error_body(code, f"{detail}.", {"field": "body"})
        return JsonResponse(body, status=400)
    back = page_sent_from(request)
    context = {
        "message": f"{detail}. {hint}".strip(),
        "typed": False,
        "back": back or "/",
        "came_from": back is not None,
    }
    return HttpResponse(render_to_string("errors/400.html", context), status=400)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """``handler404``: the API's JSON error body under the API's paths (DRF's views answer
    their own 404s; this is for a path no route answers), the console's page elsewhere."""
    if is_api_path(request.path):
        return api_not_found(request)
    return render(request, "errors/404.html", {"path": request.path}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    """``handler500``, called while the failing request's exception is being handled:
    a database that cannot be reached is a 503 (``verifier.outage``); the API answers
    its JSON error body, the console a page that needs neither session nor database."""
    exc = sys.exc_info()[1]
    api = is_api_path(request.path)
    # the id in the response's X-Request-ID header and the log (verifier.request_id)
    details = {"request_id": current_request_id()}
    if statement_timed_out(exc):  # the web requests' statement timeout: a 503 that says so
        return statement_timeout_response(request)
    if database_unreachable(exc):
        if api:
            response: HttpResponse = JsonResponse(
                error_body("unavailable", UNAVAILABLE_MESSAGE, details), status=503
            )
        else:
            page = render_to_string("errors/503.html", {"message": UNAVAILABLE_MESSAGE})
            response = HttpResponse(page, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if api:
        body = error_body(
            "server_error",
            "The server failed to answer; the error was logged under its request id.",
            details,
        )
        return JsonResponse(body, status=500)
    return HttpResponse(render_to_string("errors/500.html"), status=500)
