"""Connect API routes for the RAG answer audit (seed 003)."""

from django.urls import path

from verifier.api.rag import RagAuditApi

urlpatterns = [
    path("rag/audit", RagAuditApi.as_view(), name="api-rag-audit"),
]
