"""Audit packs in the console: the buttons on the claim list, a source, a trace and a job
page start a background export (``POST``); its page shows the progress and, when done,
the download and how to check it. Exporting is reading: every role may."""

from __future__ import annotations

from django.contrib import messages
from django.http import FileResponse, Http404, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from verifier.api.audit_pack import (
    AuditPackScopeSerializer,
    job_archive_open,
    job_archive_present,
    pack_scope,
)
from verifier.api.errors import ApiError
from verifier.audit_pack.scope import AuditPackError, parse_scope
from verifier.audit_pack.writer import checker_sha256
from verifier.http import MemberRequest
from verifier.models import ApiScope, AuditPackJobStatus
from verifier.permissions import role_required
from verifier.pipeline.views import HTMX_STOP_POLLING
from verifier.selectors.audit_pack import audit_pack_job_get, audit_pack_signing_key
from verifier.selectors.worker_beats import job_liveness
from verifier.services.audit_pack import audit_pack_job_create
from verifier.vocabulary import api_message_in_words


@require_POST
@role_required(unsafe_scope=ApiScope.READ)
def pack_create(request: MemberRequest) -> HttpResponse:
    # The API's rule for a pack's scope, so a filter no claim list knows (a forged or
    # stale form) is refused by name instead of exporting an empty pack. Blank fields
    # are filters not set, as on the claim list.
    fields = {
        key: value
        for key in request.POST
        if key != "csrfmiddlewaretoken" and (value := request.POST.get(key, "").strip())
    }
    try:
        scope = pack_scope(AuditPackScopeSerializer, fields)
    except AuditPackError as exc:
        messages.error(request, api_message_in_words(exc.message))
        return redirect("audit:claim-list")
    job = audit_pack_job_create(
        workspace=request.workspace,
        scope=scope,
        actor=request.user,
        exported_by={"role": str(request.membership.role)},
    )
    return redirect("audit:pack-job", job_id=job.pk)


@require_GET
@role_required()
def pack_job(request: MemberRequest, job_id: int) -> HttpResponse:
    job = audit_pack_job_get(workspace=request.workspace, job_id=job_id)
    key = audit_pack_signing_key(workspace=request.workspace)
    context = {
        "job": job,
        "scope": parse_scope(job.scope),
        "public_key": key.public_key if key else "",
        "checker_sha256": checker_sha256(),
        # a succeeded job whose archive is gone offers to export it again, not a download
        "archive_present": job.status == AuditPackJobStatus.SUCCEEDED and job_archive_present(job),
        **job_liveness(job),
    }
    if request.htmx:
        response = render(request, "audit/partials/pack_job.html", context)
        if job.finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "audit/pack_job.html", context)


@require_GET
@role_required()
def pack_download(request: MemberRequest, job_id: int) -> HttpResponseBase:
    job = audit_pack_job_get(workspace=request.workspace, job_id=job_id)
    if job.status != AuditPackJobStatus.SUCCEEDED:
        raise Http404("This pack is not ready.")
    try:
        archive = job_archive_open(job)
    except ApiError:
        # The archive was moved or deleted: the job's page, which says so and offers to
        # export the pack again, as a 410.
        response = pack_job(request, job_id)
        response.status_code = 410
        return response
    return FileResponse(
        archive,
        as_attachment=True,
        filename=job.file_name,
        content_type="application/zip",
    )
