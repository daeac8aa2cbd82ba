"""Console: "Verify claims" — paste or upload claims with their cited sources, read each
claim's state, reason and audit link. Small batches are verified during the request;
larger ones run on the Celery workers while the job page shows progress."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from verifier import vocabulary
from verifier.http import MemberRequest
from verifier.models import VerificationJobStatus
from verifier.models.jobs import chunked_percent
from verifier.permissions import role_required
from verifier.pipeline.verify_forms import ClaimVerifyForm
from verifier.pipeline.views import HTMX_STOP_POLLING
from verifier.selectors.claim_verification import (
    verification_job_get,
    verification_job_list,
    verification_job_summary,
    verification_results,
)
from verifier.selectors.worker_beats import job_liveness
from verifier.services.claim_verification import (
    INLINE_MAX_CLAIMS,
    ClaimVerifyInputError,
    verification_job_create,
    verification_job_run,
)

JOBS_PAGE_SIZE = 20
RESULTS_PAGE_SIZE = 50


@require_http_methods(["GET", "POST"])
@role_required()
def verify(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    form = ClaimVerifyForm(workspace=workspace)
    if request.method == "POST":  # role_required refused it without the write scope
        form = ClaimVerifyForm(request.POST, request.FILES, workspace=workspace)
        if form.is_valid():
            claims = form.cleaned_data["parsed"]
            inline = len(claims) <= INLINE_MAX_CLAIMS
            try:
                job = verification_job_create(
                    workspace=workspace,
                    claims=claims,
                    policy=form.cleaned_data["policy"],
                    actor=request.user,
                    enqueue=not inline,
                )
            except ClaimVerifyInputError as exc:
                form.add_error(None, form.refusal_message(exc))
            else:
                if inline:
                    verification_job_run(job_id=job.pk)
                    messages.success(request, f"Verified {vocabulary.counted(job.total, 'claim')}.")
                else:
                    messages.success(request, f"Verification job #{job.pk} queued.")
                return redirect("verify:job", job_id=job.pk)
    page = Paginator(verification_job_list(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(
        request,
        "verify/verify.html",
        {"form": form, "page": page, "inline_max": INLINE_MAX_CLAIMS},
    )


@require_GET
@role_required()
def job_detail(request: MemberRequest, job_id: int) -> HttpResponse:
    workspace = request.workspace
    job = verification_job_get(workspace=workspace, job_id=job_id)
    page = Paginator(job.items, RESULTS_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "job": job,
        "summary": verification_job_summary(job=job),
        "page": page,
        "results": verification_results(workspace=workspace, items=list(page.object_list)),
        "percent": chunked_percent(
            done=job.done, total=job.total, succeeded=job.status == VerificationJobStatus.SUCCEEDED
        ),
        **job_liveness(job),
    }
    if request.htmx:
        response = render(request, "verify/partials/_job.html", context)
        if job.finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "verify/job.html", context)
