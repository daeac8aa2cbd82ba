"""Connect API routes: retrieval, graph, traces, rules, sources, claims, calibrators,
relations, activity."""

from django.urls import path

from verifier.api.activity import ActivityListApi
from verifier.api.calibrators import CalibratorListApi
from verifier.api.claim_verification import ClaimVerifyApi, ClaimVerifyJobGetApi
from verifier.api.claims import ClaimGetApi, ClaimListApi
from verifier.api.graph import GraphQueryApi
from verifier.api.relations import RelationListApi
from verifier.api.retrieve import ContextRetrieveApi
from verifier.api.rules import VerificationRulesBuiltInApi, VerificationRulesGetApi
from verifier.api.sources import SourceGetApi, SourceUpsertApi
from verifier.api.traces import TraceExportApi, TraceGetApi

urlpatterns = [
    path("retrieve", ContextRetrieveApi.as_view(), name="api-retrieve"),
    path("graph", GraphQueryApi.as_view(), name="api-graph"),
    path("traces/<str:trace_id>", TraceGetApi.as_view(), name="api-trace"),
    path("traces/<str:trace_id>/export", TraceExportApi.as_view(), name="api-trace-export"),
    path("verification-rules", VerificationRulesGetApi.as_view(), name="api-rules"),
    path(
        "verification-rules/built-in",
        VerificationRulesBuiltInApi.as_view(),
        name="api-rules-built-in",
    ),
    path("sources", SourceUpsertApi.as_view(), name="api-sources"),
    # A ref looks like "source:name" and may contain "/" — the path converter takes both.
    path("sources/<path:ref>", SourceGetApi.as_view(), name="api-source"),
    path("claims", ClaimListApi.as_view(), name="api-claims"),
    # Before claims/<claim_id>: "verify" is not a claim id.
    path("claims/verify", ClaimVerifyApi.as_view(), name="api-claims-verify"),
    path(
        "claims/verify/jobs/<int:job_id>",
        ClaimVerifyJobGetApi.as_view(),
        name="api-claims-verify-job",
    ),
    path("claims/<str:claim_id>", ClaimGetApi.as_view(), name="api-claim"),
    path("calibrators", CalibratorListApi.as_view(), name="api-calibrators"),
    path("relations", RelationListApi.as_view(), name="api-relations"),
    path("activity", ActivityListApi.as_view(), name="api-activity"),
]
