"""Audit-pack routes (``verifier.api.audit_pack``)."""

from django.urls import path

from verifier.api.audit_pack import (
    AuditPackCheckerApi,
    AuditPackDownloadApi,
    AuditPackJobCreateApi,
    AuditPackJobDownloadApi,
    AuditPackJobGetApi,
    AuditPackPublicKeyApi,
)

urlpatterns = [
    path("audit-pack", AuditPackDownloadApi.as_view(), name="api-audit-pack"),
    path(
        "audit-pack/public-key", AuditPackPublicKeyApi.as_view(), name="api-audit-pack-public-key"
    ),
    path("audit-pack/checker", AuditPackCheckerApi.as_view(), name="api-audit-pack-checker"),
    path("audit-pack/jobs", AuditPackJobCreateApi.as_view(), name="api-audit-pack-jobs"),
    path("audit-pack/jobs/<int:job_id>", AuditPackJobGetApi.as_view(), name="api-audit-pack-job"),
    path(
        "audit-pack/jobs/<int:job_id>/download",
        AuditPackJobDownloadApi.as_view(),
        name="api-audit-pack-job-download",
    ),
]
