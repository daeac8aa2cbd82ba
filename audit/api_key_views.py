"""The API keys page (admins): the workspace's keys, making one (shown once) and revoking
one, with a copy-paste ``curl`` example per endpoint family and the link to the API docs.

Making a key is Post/Redirect/Get: the POST keeps the new secret in the session and
redirects to the keys page, which takes it out of the session as it shows it. Reloading
that page shows no secret and makes no key; the secret never travels in a URL. A double
click sends the POST twice and the browser shows the second answer: the second finds the
name taken by the key the first made, whose secret is still in the session, and sends the
keys page that shows it, where it would otherwise show "name taken" and leave the
secret for a later visit."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.confirmation import ask_first
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.api.curl_examples import EXAMPLES
from verifier.http import MemberRequest
from verifier.models import ApiScope
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.selectors.workspaces import api_key_list
from verifier.services.workspaces import ApiKeyInputError, api_key_create, api_key_revoke
from verifier.vocabulary import api_message_in_words

# The session key holding a new key's secret until the keys page shows it, once.
NEW_KEY_SESSION_KEY = "api_key_shown_once"


class ApiKeyForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name (who or what uses it)")
    scope = forms.ChoiceField(choices=ApiScope.choices, initial=ApiScope.READ, label="Scope")


def _render(
    request: MemberRequest,
    *,
    form: ApiKeyForm | None = None,
    new_key: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    response = render(
        request,
        "audit/api_keys.html",
        {
            "page": Paginator(
                api_key_list(workspace=request.workspace), CONSOLE_PAGE_SIZE
            ).get_page(request.GET.get("page")),
            "form": form or ApiKeyForm(),
            "new_key": new_key,
            "examples": EXAMPLES,
            "base_url": request.build_absolute_uri("/").rstrip("/"),
        },
        status=status,
    )
    # The page may carry a secret: no cache, and no copy for the back button, keeps it.
    response["Cache-Control"] = "no-store"
    return response


def _take_new_key(request: MemberRequest) -> dict[str, str] | None:
    """The secret of the key this session just made in the current workspace, taken out
    of the session: it is shown on this answer and never again."""
    new_key = request.session.get(NEW_KEY_SESSION_KEY)
    if not isinstance(new_key, dict) or new_key.get("workspace") != request.workspace.slug:
        return None
    del request.session[NEW_KEY_SESSION_KEY]
    return {"name": str(new_key["name"]), "raw_key": str(new_key["raw_key"])}


@require_GET
@role_required(*ADMIN_ROLES)
def api_keys(request: MemberRequest) -> HttpResponse:
    return _render(request, new_key=_take_new_key(request))


@require_POST
@role_required(*ADMIN_ROLES)
def api_key_new(request: MemberRequest) -> HttpResponse:
    form = ApiKeyForm(request.POST)
    if not form.is_valid():
        return _render(request, form=form, status=422)
    try:
        # The secret is stored in the session with the key, in one commit: a second click's
        # request waits for this one's key (``api_key_create`` queues them on the
        # workspace), then finds the name taken and reads the session for the secret.
        with transaction.atomic():
            created = api_key_create(
                workspace=request.workspace,
                name=form.cleaned_data["name"].strip(),
                scope=form.cleaned_data["scope"],
            )
            request.session[NEW_KEY_SESSION_KEY] = {
                "workspace": request.workspace.slug,
                "name": created.api_key.name,
                "scope": created.api_key.scope,
                "raw_key": created.raw_key,
            }
            request.session.save()
    except ApiKeyInputError as error:
        if error.code == "name_taken" and _made_by_a_first_click(request, form.cleaned_data):
            messages.info(request, "“Make key” was sent twice: one key was made, shown below.")
            return redirect("audit:api-keys")
        form.add_error("name", api_message_in_words(error.message))
        return _render(request, form=form, status=422)
    return redirect("audit:api-keys")


def _made_by_a_first_click(request: MemberRequest, data: dict[str, str]) -> bool:
    """Whether the key whose name this POST finds taken is the one this session's previous
    "Make key" just made, its secret not shown yet (a double click: the first answer was
    dropped by the browser). Read from the session store, not this request's copy, which
    was loaded before the first request saved the secret; kept in this request's copy so
    the keys page it is sent to shows the secret, once."""
    stored = type(request.session)(request.session.session_key).load()
    new_key = stored.get(NEW_KEY_SESSION_KEY)
    if not isinstance(new_key, dict) or new_key.get("workspace") != request.workspace.slug:
        return False
    name, scope = data["name"].strip(), data["scope"]
    if str(new_key.get("name", "")).casefold() != name.casefold() or new_key.get("scope") != scope:
        return False
    request.session[NEW_KEY_SESSION_KEY] = new_key
    return True


@require_POST
@role_required(*ADMIN_ROLES)
def api_key_revoke_view(request: MemberRequest, key_id: int) -> HttpResponse:
    key = api_key_list(workspace=request.workspace).filter(pk=key_id, revoked_at=None).first()
    if key is not None:
        asked = ask_first(
            request,
            question=f"Revoke the key “{key.name}”? Programs using it stop working at once; "
            "this cannot be undone.",
            action="Revoke the key",
            back=reverse("audit:api-keys"),
        )
        if asked is not None:
            return asked
    gone = api_key_list(workspace=request.workspace).filter(pk=key_id).exclude(revoked_at=None)
    revoked_before = gone.first()  # by another admin since this page was drawn
    if revoked_before is not None:
        messages.info(request, f"{revoked_before.name} was already revoked; nothing changed.")
        return redirect("audit:api-keys")
    revoked = api_key_revoke(workspace=request.workspace, key_id=key_id)
    if revoked is None:
        # Unknown, or another workspace's (the same answer): the keys page, with why.
        messages.error(request, "No such key in this workspace.")
        return _render(request, status=404)
    messages.success(request, f"Revoked {revoked.name} ({revoked.prefix}…).")
    return redirect("audit:api-keys")
