"""Ingest jobs and webhooks over the Connect API: parse → call one service → serialize."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.errors import ApiError
from verifier.api.pagination import IdCursorPagination
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import StrictSerializer, query_params_check
from verifier.models import ApiScope, IngestJob, WebhookEvent
from verifier.models.ingest import STAGE_ORDER
from verifier.selectors.ingest import ingest_cancel_exclusion, ingest_job_get, ingest_job_list
from verifier.selectors.webhooks import webhook_get, webhook_list
from verifier.services.ingest import ingest_job_cancel
from verifier.services.ingest_create import (
    LEGACY_VERDICTS,
    ClaimUpload,
    SourceUpload,
    ingest_job_create,
)
from verifier.services.ingest_input import FORMATS
from verifier.services.webhooks import webhook_create, webhook_turn_off


class IngestJobSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
    label = serializers.CharField()  # type: ignore[assignment]
    status = serializers.CharField()
    stage = serializers.CharField()
    progress = serializers.SerializerMethodField()
    # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
    errors = serializers.JSONField()  # type: ignore[assignment]
    warnings = serializers.JSONField(
        help_text="Set when status is 'degraded': [{code, message, count, causes}]."
    )
    quality_report = serializers.JSONField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    heartbeat_at = serializers.DateTimeField(
        allow_null=True,
        help_text="When the worker running the current stage last said it is alive (every "
        "fifth of SPANPROOF_JOB_STALE_SECONDS); an active job whose heartbeat is older than "
        "that has lost its worker, and the watchdog re-enqueues the stage. Null before a "
        "worker takes the stage.",
    )
    stage_attempts = serializers.IntegerField(
        help_text="Times the watchdog re-enqueued the current stage after its worker went "
        "silent (the job fails after SPANPROOF_JOB_MAX_ATTEMPTS)."
    )

    cancel_exclusion = serializers.SerializerMethodField(
        help_text="A cancelled job's claims that no judge read are excluded in the "
        "background after the cancel answers: {excluded: how many so far, completed}. "
        "Null unless the job was cancelled."
    )

    def get_progress(self, job: IngestJob) -> dict[str, dict[str, int]]:
        return {
            stage: {k: entry.get(k, 0) for k in ("done", "total", "failed")}
            for stage, entry in (job.progress or {}).items()
            if stage in STAGE_ORDER
        }

    def get_cancel_exclusion(self, job: IngestJob) -> dict[str, Any] | None:
        return ingest_cancel_exclusion(job)


class IngestJobCreateApi(APIView):
    """Upload sources (text, Markdown or HTML) and/or claims (with or without quotes,
    optionally with a legacy verdict) and queue an ingest job. 202 with the job."""

    pagination_class = IdCursorPagination  # GET: the workspace's jobs

    @extend_schema_serializer(component_name="IngestJobCreateRequest")
    class InputSerializer(StrictSerializer):
        class SourceInput(serializers.Serializer[Any]):
            ref = serializers.CharField(max_length=200, required=False, allow_blank=True)
            title = serializers.CharField(max_length=300, required=False, allow_blank=True)
            citation = serializers.CharField(max_length=500, required=False, allow_blank=True)
            domain_pack = serializers.CharField(max_length=64, required=False, allow_blank=True)
            format = serializers.ChoiceField(choices=FORMATS, default="text")
            text = serializers.CharField(
                trim_whitespace=False, max_length=settings.SOURCE_TEXT_MAX_CHARS
            )

        class ClaimInput(serializers.Serializer[Any]):
            source_ref = serializers.CharField(max_length=200)
            text = serializers.CharField(max_length=5000)
            quote = serializers.CharField(
                required=False, allow_blank=True, trim_whitespace=False, max_length=20_000
            )
            legacy_verdict = serializers.ChoiceField(choices=LEGACY_VERDICTS, default="none")

        # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
        label = serializers.CharField(max_length=200, required=False, allow_blank=True)  # type: ignore[assignment]
        sources = SourceInput(many=True, required=False)
        claims = ClaimInput(many=True, required=False)
        extract = serializers.BooleanField(required=False, allow_null=True, default=None)

    @extend_schema(
        request=InputSerializer,
        responses={
            202: IngestJobSerializer,
            409: OpenApiResponse(
                description="ref_in_use or domain_pack_conflict: a source's ref names a "
                "transcript or RAG chunk, or a source of another domain pack"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        job = ingest_job_create(
            workspace=workspace,
            sources=[SourceUpload(**s) for s in values.get("sources", [])],
            claims=[ClaimUpload(**c) for c in values.get("claims", [])],
            label=values.get("label", ""),
            extract=values.get("extract"),
            actor=request.user,
        )
        return Response(IngestJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses=IngestJobSerializer(many=True))
    def get(self, request: Request) -> Response:
        """The workspace's jobs, newest first, in cursor pages like every list."""
        query_params_check(request, self.pagination_class.query_params)
        paginator = self.pagination_class()
        jobs = ingest_job_list(workspace=request_workspace(request))
        page = paginator.paginate_queryset(jobs, request, view=self) or []
        return paginator.get_paginated_response(IngestJobSerializer(page, many=True).data)


class IngestJobGetApi(APIView):
    """Status, per-stage progress, per-item errors and (when stored) the quality report."""

    @extend_schema(responses=IngestJobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        query_params_check(request, ())
        job = ingest_job_get(workspace=request_workspace(request), job_id=job_id)
        return Response(IngestJobSerializer(job).data)


class IngestJobCancelApi(APIView):
    """Cancel a queued or running job (a cancelled job answers as it is, so a retried
    cancel is safe; 409 when it already finished otherwise): the stages still
    to run (extraction, binding, judging, …) do not run. The source versions the job's
    upload made are stored already (versions are immutable: a new version, uploaded
    again, is how a text is replaced) and stay; claims it judged keep their states, and
    those it stored but never judged are excluded with the reason, in the background
    once this answers (``cancel_exclusion`` says how far; ``ingest_job_cancel``)."""

    @extend_schema(
        request=None,
        responses={
            200: IngestJobSerializer,
            400: OpenApiResponse(description="unknown_field: it takes no body"),
            409: OpenApiResponse(description="job_finished: the job already finished"),
        },
    )
    def post(self, request: Request, job_id: int) -> Response:
        # no body: any field in one is unknown
        StrictSerializer(data=request.data or {}).is_valid(raise_exception=True)
        job = ingest_job_get(workspace=request_workspace(request), job_id=job_id)
        if not ingest_job_cancel(job=job) and job.status != "cancelled":
            raise ApiError(
                "job_finished",
                f"Job {job.pk} has already finished ({job.status}): nothing is left to cancel.",
                status_code=status.HTTP_409_CONFLICT,
                details={"status": job.status},
            )
        return Response(IngestJobSerializer(job).data)


@extend_schema_serializer(component_name="Webhook")
class WebhookSerializer(serializers.Serializer[Any]):
    """A webhook as the API shows it: never its secret."""

    id = serializers.IntegerField(source="pk")
    url = serializers.CharField()
    events = serializers.JSONField()
    threshold = serializers.IntegerField()
    is_active = serializers.BooleanField()
    created_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="WebhookListItem")
class WebhookListItemSerializer(WebhookSerializer):
    last_status = serializers.CharField(
        allow_null=True,
        help_text="How its latest delivery went: pending, retrying, delivered, failed or "
        "cancelled; null before its first.",
    )
    last_event_at = serializers.DateTimeField(allow_null=True)


class WebhookCreateApi(APIView):
    """Register a webhook for job.completed, job.quality_below_threshold and/or
    verification.completed (POST), or list the workspace's webhooks, newest first (GET)."""

    # Webhooks send workspace data to outside addresses: admin keys and console admins.
    required_scopes = {"POST": ApiScope.ADMIN, "GET": ApiScope.ADMIN}
    pagination_class = IdCursorPagination

    @extend_schema(responses=WebhookListItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        query_params_check(request, self.pagination_class.query_params)
        paginator = self.pagination_class()
        rows = webhook_list(workspace=request_workspace(request))
        page = paginator.paginate_queryset(rows, request, view=self) or []
        return paginator.get_paginated_response(WebhookListItemSerializer(page, many=True).data)

    @extend_schema_serializer(component_name="WebhookCreateRequest")
    class InputSerializer(StrictSerializer):
        url = serializers.URLField(max_length=500)
        # kept as sent: ``webhook_create`` refuses outer blanks rather than trimming them
        secret = serializers.CharField(min_length=16, max_length=128, trim_whitespace=False)
        events = serializers.ListField(
            child=serializers.ChoiceField(choices=[e.value for e in WebhookEvent]),
            allow_empty=False,
        )
        threshold = serializers.IntegerField(min_value=0, max_value=100, default=90)

    @extend_schema(
        request=InputSerializer,
        responses={
            201: WebhookSerializer,
            409: OpenApiResponse(
                description="webhook_exists: an active webhook already sends these events "
                "to this URL at this threshold (`details.webhook_id` names it)"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        webhook = webhook_create(workspace=request_workspace(request), **data.validated_data)
        return Response(WebhookSerializer(webhook).data, status=status.HTTP_201_CREATED)


class WebhookGetApi(APIView):
    """One webhook (GET), or turn it off (DELETE): no delivery is queued for it any more
    and the waiting ones are cancelled; the webhook and its deliveries stay on record, so
    DELETE answers 200 with it (``is_active`` false), again on a second call."""

    required_scopes = {"GET": ApiScope.ADMIN, "DELETE": ApiScope.ADMIN}

    @extend_schema(responses=WebhookSerializer)
    def get(self, request: Request, webhook_id: int) -> Response:
        query_params_check(request, ())
        webhook = webhook_get(workspace=request_workspace(request), webhook_id=webhook_id)
        return Response(WebhookSerializer(webhook).data)

    # 200 with the webhook, not 204: it stays on record, turned off
    @extend_schema(responses={200: WebhookSerializer})
    def delete(self, request: Request, webhook_id: int) -> Response:
        webhook = webhook_get(workspace=request_workspace(request), webhook_id=webhook_id)
        return Response(WebhookSerializer(webhook_turn_off(webhook=webhook)).data)
