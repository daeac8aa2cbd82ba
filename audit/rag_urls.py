"""Console routes for the RAG answer audit (mounted at /audit/rag/)."""

from django.urls import path

from audit import rag_views

app_name = "audit-rag"

urlpatterns = [
    path("", rag_views.rag_audit_index, name="index"),
    path("<int:audit_id>/", rag_views.rag_audit_detail, name="detail"),
    path("<int:audit_id>/claims/<int:claim>/", rag_views.rag_audit_detail, name="claim"),
]
