"""Console page for the claim verification worker: run one verification and read its
diagnostics in the seed's debugging order."""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from verifier import vocabulary
from verifier.claim_worker.config import TRUST_POLICY_MODES
from verifier.claim_worker.package import deciding_item
from verifier.claim_worker.trust import Stance
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.http import MemberRequest
from verifier.permissions import role_required
from verifier.selectors.rules import rule_set_domain_packs
from verifier.services.claim_worker_request import (
    TOP_K_DEFAULT,
    TOP_K_MAX,
    TOP_K_MIN,
    WorkerInputError,
    worker_known_domains,
)
from verifier.services.claim_worker_verify import worker_verify


class WorkerVerifyForm(forms.Form):
    claim = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_CLAIM_CHARS)
    top_k = forms.IntegerField(min_value=TOP_K_MIN, max_value=TOP_K_MAX, initial=TOP_K_DEFAULT)
    domain = forms.ChoiceField(
        initial="general", help_text="general: every source; another pack: its sources only."
    )
    trust_policy_mode = forms.ChoiceField(
        choices=[
            ("", "As configured"),
            *((m, vocabulary.label("worker_trust_mode", m)) for m in TRUST_POLICY_MODES),
        ],
        required=False,
        label="Trust policy mode",
    )

    def __init__(self, *args: Any, known_packs: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        domains = worker_known_domains(known_packs)
        field = self.fields["domain"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(d, d) for d in domains]
        field.error_messages["invalid_choice"] = (
            f"“%(value)s” is not a domain pack of this workspace; "
            f"choose one of: {', '.join(domains)}."
        )


@require_http_methods(["GET", "POST"])
@role_required()  # reading is open to every role; a POST needs the write scope
def worker_console(request: MemberRequest) -> HttpResponse:
    form = WorkerVerifyForm(
        request.POST or None, known_packs=rule_set_domain_packs(workspace=request.workspace)
    )
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
            field = exc.details.get("field")
            form.add_error(field if field in form.fields else None, exc.message)
    return render(
        request,
        "worker/verify.html",
        {"form": form, "result": result, **_decided_by(result)},
    )


def _decided_by(result: dict[str, Any] | None) -> dict[str, Any]:
    """``decided_by``: the index of the evidence item the result's verdict rests on (the
    one its stored claim cites), from the stances the response carries, and
    ``decided_item`` that item; both None for an unverifiable verdict or when no item
    took the verdict's side."""
    evidence = (result or {}).get("evidence", [])
    stances = [
        {s["subclaim_index"]: Stance(s["label"], float(s["confidence"])) for s in item["stances"]}
        for item in evidence
    ]
    verdict = str((result or {}).get("verdict", ""))
    # an unverifiable verdict rests on no item, whichever its stored claim cites
    index = deciding_item(verdict, stances) if verdict not in ("", "UNVERIFIABLE") else None
    return {
        "decided_by": index,
        "decided_item": None if index is None else evidence[index],
    }
