"""Audit console: reviewer calibrators (admins only): proposed, activated, deactivated, and the
jobs that re-read claims. Each view parses the request, calls one selector or service,
renders."""

from __future__ import annotations

import json
from typing import Final

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.confirmation import ask_first
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.engine import get_judge
from verifier.http import MemberRequest
from verifier.judges.reviewer_calibrator import (
    MIN_OVERRULES,
    OVERRULE_LABELS,
    may_overrule,
    overrule_figures,
)
from verifier.models import CalibratorChangeJob, CalibratorStatus, JudgeCalibrator
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.pipeline.views import HTMX_STOP_POLLING
from verifier.selectors import calibrators as calibrator_selectors
from verifier.selectors.worker_beats import job_liveness
from verifier.services import judge_calibrators as calibrator_services
from verifier.vocabulary import api_message_in_words

FLIPS_SHOWN: Final = 200  # rows of each flip list on the activation page
# Asked before deactivating (in the browser and, without script, on a page of its own).
DEACTIVATE_QUESTION: Final = (
    "Deactivate {row}? New verdicts become the plain judge's, and the claims it decided get "
    "the judge's answer back. A deactivated calibrator cannot be activated again: only a "
    "new one, fitted on the reviewers' decisions, can."
)


@require_GET
@role_required(*ADMIN_ROLES)
def calibrators(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    page = Paginator(
        calibrator_selectors.calibrator_list(workspace=workspace), CONSOLE_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    changes = calibrator_selectors.calibrator_changes_unfinished(
        calibrator_ids=[row.pk for row in page]
    )
    judge = get_judge()
    model_id, version = str(judge.model_id), int(judge.prompt_version)
    rows = [
        {
            "row": row,
            "refusal": calibrator_selectors.calibrator_refusal(row),
            "stale": calibrator_selectors.calibrator_use_refusal(
                row, judge_model=model_id, prompt_version=version
            ),
            "change": changes.get(row.pk),
        }
        for row in page
    ]
    return render(
        request,
        "audit/calibrators.html",
        {
            "page": page,
            "rows": rows,
            "floor": calibrator_selectors.calibrator_precision_floor(),
            "min_new": calibrator_services.min_new_decisions(),
            # supported or contradicted decisions since the last fit of this judge's reading
            "new_decisions": calibrator_selectors.calibrator_new_decisions(
                workspace=workspace, judge_model=model_id, prompt_version=version
            ),
            "judge_model": model_id,
        },
    )


@require_GET
@role_required(*ADMIN_ROLES)
def calibrator_detail(request: MemberRequest, pk: int) -> HttpResponse:
    row = calibrator_selectors.calibrator_get(workspace=request.workspace, pk=pk)
    judge = get_judge()
    model_id, version = str(judge.model_id), int(judge.prompt_version)
    return render(
        request,
        "audit/calibrator_detail.html",
        {
            "calibrator": row,
            "floor": calibrator_selectors.calibrator_precision_floor(),
            "refusal": calibrator_selectors.calibrator_activation_refusal(
                row=row, judge_model=model_id, prompt_version=version
            ),
            "stale": calibrator_selectors.calibrator_use_refusal(
                row, judge_model=model_id, prompt_version=version
            ),
            # below the floor: what a fit needs to reach it
            "calls_needed": (
                calibrator_selectors.calibrator_calls_needed()
                if calibrator_selectors.calibrator_refusal(row)
                else None
            ),
            "min_new": calibrator_services.min_new_decisions(),
            "new_decisions": calibrator_selectors.calibrator_new_decisions(
                workspace=request.workspace, judge_model=model_id, prompt_version=version
            ),
            "overrule": overrule_rows(row),
            "min_overrules": MIN_OVERRULES,
            "params_json": json.dumps(row.params, indent=2),
            "job": calibrator_selectors.calibrator_change_job_latest(calibrator=row),
            "deactivate_question": DEACTIVATE_QUESTION.format(row=row),
        },
    )


def overrule_rows(row: JudgeCalibrator) -> list[dict[str, object]]:
    """Per answer the judge decides (in the page's words): the calibrator's out-of-fold
    overrule figures (``reviewer_calibrator.overrule_figures``; empty for one fitted
    before they were recorded) and whether it sends such a claim back to the queue."""
    figures = row.params.get("figures") or {}
    return [
        {
            "judge_said": "supported" if label == "entailed" else "contradicted",
            "figures": overrule_figures(figures, label),
            "may_overrule": may_overrule(figures, label),
        }
        for label in OVERRULE_LABELS
    ]


@require_POST
@role_required(*ADMIN_ROLES)
def calibrator_activate(request: MemberRequest, pk: int) -> HttpResponse:
    """Activate a proposed calibrator, after a confirmation page with its flip list; the
    claims are brought in line in the background (the calibrator's page shows how far)."""
    workspace = request.workspace
    row = calibrator_selectors.calibrator_get(workspace=workspace, pk=pk)
    if request.POST.get("confirm") == "1":
        try:
            job = calibrator_services.judge_calibrator_activate(
                calibrator=row,
                actor=request.user,
                # the confirmation page's: the calibrator in force its flip list was drawn
                # against
                previewed_against=request.POST.get("previewed_against"),
            )
        except calibrator_services.CalibratorRefused as exc:
            messages.error(request, api_message_in_words(exc.message))
            if exc.code != calibrator_services.STALE_PREVIEW:
                return redirect("audit:calibrator-detail", pk=row.pk)
            # the flip list again, against the calibrator in force now, to confirm or not
            row = calibrator_selectors.calibrator_get(workspace=workspace, pk=pk)
            return _confirmation(request, row)
        messages.success(request, activation_message(row, job))
        return redirect("audit:calibrator-detail", pk=row.pk)
    return _confirmation(request, row)


def activation_message(row: JudgeCalibrator, job: CalibratorChangeJob) -> str:
    """What an admin is told on confirming: the claims the background change reads (the
    job's ``total``, the claims in scope, as its panel counts them), not a number of
    claims it decides — how many get its answer and change state is known once the job
    has read them (the panel's "verdicts appended" and "changed state", the flip list's
    two counts)."""
    return (
        f"Activated {row}: new verdicts of {row.judge_model} pass through it. The "
        f"{job.total} claim{pluralize(job.total)} in its scope {pluralize(job.total, 'is,are')} "
        "being read again in the background; its page shows how many get its answer and "
        "change state, as the flip list did."
    )


def _confirmation(request: MemberRequest, row: JudgeCalibrator) -> HttpResponse:
    """The confirmation page with the flip list of activating ``row`` now, or the
    calibrator's page with why it may not be activated."""
    preview = calibrator_selectors.calibrator_activation_preview(
        workspace=request.workspace, row=row, judge=get_judge()
    )
    if preview.refusal:
        messages.error(request, preview.refusal)
        return redirect("audit:calibrator-detail", pk=row.pk)
    return render(
        request,
        "audit/calibrator_confirm.html",
        {
            "calibrator": row,
            "plan": preview.plan,
            "preview": preview,
            "shown": FLIPS_SHOWN,
            # read but left as they are: no fresh bound span, or judged last by another model
            "unread": preview.read - (preview.plan.scanned if preview.plan else 0),
        },
    )


@require_POST
@role_required(*ADMIN_ROLES)
def calibrator_deactivate(request: MemberRequest, pk: int) -> HttpResponse:
    """Retire the active calibrator, after asking (a retired one is never activated
    again: a new fit is); a calibrator that is not active is refused without asking."""
    row = calibrator_selectors.calibrator_get(workspace=request.workspace, pk=pk)
    if row.status == CalibratorStatus.ACTIVE:
        asked = ask_first(
            request,
            question=DEACTIVATE_QUESTION.format(row=row),
            action=f"Deactivate {row}",
            back=reverse("audit:calibrator-detail", args=[row.pk]),
        )
        if asked is not None:
            return asked
    try:
        job = calibrator_services.judge_calibrator_deactivate(calibrator=row, actor=request.user)
    except calibrator_services.CalibratorRefused as exc:
        messages.error(request, api_message_in_words(exc.message))
        return redirect("audit:calibrator-detail", pk=row.pk)
    restored = (
        f"the judge's answer is being given back to the claims it decided (of {job.total} in scope)"
        if job is not None
        else f"the configured judge is no longer {row.judge_model}: no claim was read again"
    )
    messages.success(request, f"Deactivated {row}: new verdicts are the plain judge's; {restored}.")
    return redirect("audit:calibrator-detail", pk=row.pk)


@require_GET
@role_required(*ADMIN_ROLES)
def calibrator_job(request: MemberRequest, job_id: int) -> HttpResponse:
    """How far a calibrator change has brought the claims (polled by htmx)."""
    job = calibrator_selectors.calibrator_change_job_get(workspace=request.workspace, job_id=job_id)
    context = {"job": job, **job_liveness(job)}
    if request.htmx:
        response = render(request, "audit/partials/calibrator_job.html", context)
        if job.finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "audit/calibrator_job.html", context)
