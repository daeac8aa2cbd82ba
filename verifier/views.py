"""Console shell views: home, workspace switch, /healthz and the error pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_GET, require_POST

from verifier import vocabulary
from verifier.middleware import SESSION_WORKSPACE_KEY
from verifier.selectors.health import health_report
from verifier.selectors.workspaces import membership_get


@login_required
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


@login_required
@require_POST
def workspace_switch(request: HttpRequest) -> HttpResponse:
    slug = request.POST.get("workspace", "")
    if membership_get(user=request.user, slug=slug) is not None:
        request.session[SESSION_WORKSPACE_KEY] = slug
    return redirect("home")


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


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/404.html", {"path": request.path}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/500.html", status=500)
