"""Console page for the claim verification worker: run one verification and read its
diagnostics in the seed's debugging order."""

from __future__ import annotations

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from verifier.claim_worker.config import TRUST_POLICY_MODES
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.http import MemberRequest
from verifier.permissions import role_required
from verifier.services.claim_worker_request import (
    TOP_K_DEFAULT,
    TOP_K_MAX,
    TOP_K_MIN,
    WorkerInputError,
)
from verifier.services.claim_worker_verify import worker_verify


class WorkerVerifyForm(forms.Form):
    claim = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_CLAIM_CHARS)
    top_k = forms.IntegerField(min_value=TOP_K_MIN, max_value=TOP_K_MAX, initial=TOP_K_DEFAULT)
    domain = forms.CharField(max_length=64, initial="general")
    trust_policy_mode = forms.ChoiceField(
        choices=[("", "as configured"), *((m, m) for m in TRUST_POLICY_MODES)],
        required=False,
        label="Trust policy mode",
    )


@require_http_methods(["GET", "POST"])
@role_required()  # reading is open to every role; a POST needs the write scope
def worker_console(request: MemberRequest) -> HttpResponse:
    form = WorkerVerifyForm(request.POST or None)
    result = None
    if request.method == "POST" and form.is_valid():
        try:
            result = worker_verify(
                workspace=request.workspace,
                job_id=f"console:{request.user.pk}",
                actor=request.user,
                **form.cleaned_data,
            )
        except WorkerInputError as exc:
            form.add_error(None, exc.message)
    return render(request, "worker/verify.html", {"form": form, "result": result})
