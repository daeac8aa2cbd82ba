"""The webhooks page (admins): where the workspace's job and verification events are
sent, how each one's latest delivery went, adding one and turning one off. The same
services as ``/connect/v1/webhooks``; a webhook turned off keeps its record."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.confirmation import ask_first
from audit.paging import CONSOLE_PAGE_SIZE
from audit.selectors import webhook_page_list
from verifier.http import MemberRequest
from verifier.models import WebhookEvent
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.selectors.webhooks import webhook_get
from verifier.services.webhooks import WebhookInputError, webhook_create, webhook_turn_off
from verifier.vocabulary import api_message_in_words, choices, label


class WebhookForm(forms.Form):
    url = forms.URLField(max_length=500, label="URL (https)", assume_scheme="https")
    events = forms.MultipleChoiceField(
        choices=choices("webhook_event"),
        widget=forms.CheckboxSelectMultiple,
        label="Events",
        initial=[WebhookEvent.JOB_COMPLETED],
    )
    threshold = forms.IntegerField(
        min_value=0,
        max_value=100,
        initial=90,
        label="Trust score threshold (0–100)",
        help_text=f"“{label('webhook_event', WebhookEvent.JOB_QUALITY_BELOW_THRESHOLD)}” is "
        "sent when a job's trust score is below it.",
    )
    secret = forms.CharField(
        min_length=16,
        max_length=128,
        # Kept as typed: a stripped secret would sign every delivery with another secret
        # than the receiver's copy; outer blanks are refused instead (``webhook_create``).
        strip=False,
        label="Secret (16 to 128 characters)",
        widget=forms.PasswordInput(render_value=False),
        help_text="Signs every delivery (HMAC-SHA256 in X-Spanproof-Signature); keep a "
        "copy for the receiver: it is not shown again.",
    )

    def clean_secret(self) -> str:
        secret: str = self.cleaned_data["secret"]
        if not secret.strip():  # outer blanks are ``webhook_create``'s refusal
            raise forms.ValidationError("This field is required.")
        return secret


def _render(
    request: MemberRequest, *, form: WebhookForm | None = None, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "audit/webhooks.html",
        {
            "page": Paginator(
                webhook_page_list(workspace=request.workspace), CONSOLE_PAGE_SIZE
            ).get_page(request.GET.get("page")),
            "form": form or WebhookForm(),
        },
        status=status,
    )


@require_GET
@role_required(*ADMIN_ROLES)
def webhooks(request: MemberRequest) -> HttpResponse:
    return _render(request)


@require_POST
@role_required(*ADMIN_ROLES)
def webhook_new(request: MemberRequest) -> HttpResponse:
    form = WebhookForm(request.POST)
    if not form.is_valid():
        return _render(request, form=form, status=422)
    try:
        hook = webhook_create(workspace=request.workspace, **form.cleaned_data)
    except WebhookInputError as error:
        form.add_error(error.details.get("field"), api_message_in_words(error.message))
        return _render(request, form=form, status=422)
    messages.success(request, f"Webhook to {hook.url} added.")
    return redirect("audit:webhooks")


@require_POST
@role_required(*ADMIN_ROLES)
def webhook_off(request: MemberRequest, webhook_id: int) -> HttpResponse:
    try:
        hook = webhook_get(workspace=request.workspace, webhook_id=webhook_id)
    except Http404:
        messages.error(request, "No such webhook in this workspace.")
        return redirect("audit:webhooks")
    if hook.is_active:
        asked = ask_first(
            request,
            question=f"Turn off the webhook to {hook.url}? Nothing more is sent to it; it cannot "
            "be turned on again (add it anew).",
            action="Turn off the webhook",
            back=reverse("audit:webhooks"),
        )
        if asked is not None:
            return asked
        webhook_turn_off(webhook=hook)
        messages.success(request, f"Webhook to {hook.url} turned off.")
    else:
        messages.info(request, f"The webhook to {hook.url} was already off.")
    return redirect("audit:webhooks")
