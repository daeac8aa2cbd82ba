"""Connect API routes: ingest jobs and webhooks."""

from django.urls import path

from verifier.api.ingest import (
    IngestJobCancelApi,
    IngestJobCreateApi,
    IngestJobGetApi,
    WebhookCreateApi,
    WebhookGetApi,
)

urlpatterns = [
    path("ingest-jobs", IngestJobCreateApi.as_view(), name="api-ingest-jobs"),
    path("ingest-jobs/<int:job_id>", IngestJobGetApi.as_view(), name="api-ingest-job"),
    path(
        "ingest-jobs/<int:job_id>/cancel",
        IngestJobCancelApi.as_view(),
        name="api-ingest-job-cancel",
    ),
    path("webhooks", WebhookCreateApi.as_view(), name="api-webhooks"),
    path("webhooks/<int:webhook_id>", WebhookGetApi.as_view(), name="api-webhook"),
]
