"""Console: upload form, job list, and a job page whose progress bar polls with htmx."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from verifier import vocabulary
from verifier.http import MemberRequest
from verifier.permissions import DECIDER_ROLES, role_required
from verifier.pipeline.forms import IngestUploadForm
from verifier.selectors.ingest import (
    ingest_cancel_exclusion,
    ingest_job_get,
    ingest_job_is_finished,
    ingest_job_list,
    ingest_job_state_counts,
    job_progress_rows,
)
from verifier.selectors.worker_beats import job_liveness
from verifier.services.ingest import ingest_job_cancel
from verifier.services.ingest_create import IngestInputError, ingest_job_create

JOBS_PAGE_SIZE = 20
# htmx stops polling when a response has this status (the job finished).
HTMX_STOP_POLLING = 286


def _job_context(job: Any) -> dict[str, Any]:
    exclusion = ingest_cancel_exclusion(job)
    return {
        "job": job,
        "rows": job_progress_rows(job),
        "finished": ingest_job_is_finished(job),
        "states_now": ingest_job_state_counts(job),
        **job_liveness(job),
        "sent_again": vocabulary.JOB_LIVENESS["stage_sent_again"],
        "cancel_exclusion": exclusion,
        # the page polls until a cancelled job's exclusion of its claims is done
        "excluding": exclusion is not None and not exclusion["completed"],
    }


@require_http_methods(["GET", "POST"])
@role_required()
def upload(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    form = IngestUploadForm()
    status = 200
    if request.method == "POST":  # role_required refused it without the write scope
        status = 400  # unless the job is made: a refused form answers 400, as every form does
        form = IngestUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                job = ingest_job_create(
                    workspace=workspace,
                    sources=form.cleaned_data["uploads"],
                    label=form.cleaned_data["label"],
                    actor=request.user,
                )
            except IngestInputError as exc:
                form.add_error(None, exc.message)
            else:
                # No flash message: the job page's live status line says "queued" and
                # changes as the job runs (a flash would still say "queued" after it ended).
                return redirect("ingest:job", job_id=job.pk)
    page = Paginator(ingest_job_list(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "ingest/upload.html", {"form": form, "page": page}, status=status)


@require_GET
@role_required()
def job_detail(request: MemberRequest, job_id: int) -> HttpResponse:
    job = ingest_job_get(workspace=request.workspace, job_id=job_id)
    context = _job_context(job)
    if request.htmx:
        response = render(request, "ingest/partials/_job_progress_poll.html", context)
        if context["finished"] and not context["excluding"]:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "ingest/job.html", context)


@require_POST
@role_required(*DECIDER_ROLES)
def job_cancel(request: MemberRequest, job_id: int) -> HttpResponse:
    job = ingest_job_get(workspace=request.workspace, job_id=job_id)
    if ingest_job_cancel(job=job, actor=request.user):
        messages.success(
            request,
            f"Job #{job.pk} cancelled. The claims it had not judged yet are being excluded "
            "with that reason, in the background (this page says when it is done); the "
            "claims it judged keep their states.",
        )
    else:
        messages.error(request, f"Job #{job.pk} is already {job.status}.")
    return redirect("ingest:job", job_id=job.pk)
