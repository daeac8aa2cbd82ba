"""The API keys page (admins): the workspace's keys, making one (shown once) and revoking
one, with a copy-paste ``curl`` example per endpoint family and the link to the API docs."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from verifier.api.curl_examples import EXAMPLES
from verifier.http import MemberRequest
from verifier.models import ApiScope
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.selectors.workspaces import api_key_list
from verifier.services.workspaces import api_key_create, api_key_revoke


class ApiKeyForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name (who or what uses it)")
    scope = forms.ChoiceField(choices=ApiScope.choices, initial=ApiScope.READ, label="Scope")


def _render(
    request: MemberRequest, *, form: ApiKeyForm | None = None, raw_key: str = "", status: int = 200
) -> HttpResponse:
    return render(
        request,
        "audit/api_keys.html",
        {
            "keys": api_key_list(workspace=request.workspace),
            "form": form or ApiKeyForm(),
            "raw_key": raw_key,
            "examples": EXAMPLES,
            "base_url": request.build_absolute_uri("/").rstrip("/"),
        },
        status=status,
    )


@require_GET
@role_required(*ADMIN_ROLES)
def api_keys(request: MemberRequest) -> HttpResponse:
    return _render(request)


@require_POST
@role_required(*ADMIN_ROLES)
def api_key_new(request: MemberRequest) -> HttpResponse:
    form = ApiKeyForm(request.POST)
    if not form.is_valid():
        return _render(request, form=form, status=422)
    created = api_key_create(
        workspace=request.workspace,
        name=form.cleaned_data["name"].strip(),
        scope=form.cleaned_data["scope"],
    )
    # The key itself is shown once, on this answer, and never stored.
    response = _render(request, raw_key=created.raw_key)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@role_required(*ADMIN_ROLES)
def api_key_revoke_view(request: MemberRequest, key_id: int) -> HttpResponse:
    revoked = api_key_revoke(workspace=request.workspace, key_id=key_id)
    if revoked is None:
        # Unknown, or another workspace's (the same answer): the keys page, with why.
        messages.error(request, "No such key in this workspace.")
        return _render(request, status=404)
    messages.success(request, f"Revoked {revoked.name} ({revoked.prefix}…).")
    return redirect("audit:api-keys")
