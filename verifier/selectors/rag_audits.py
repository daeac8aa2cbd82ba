"""Reads of stored RAG answer audits, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import Http404

from verifier.models import RagAudit, Workspace


def rag_audit_list(*, workspace: Workspace) -> QuerySet[RagAudit]:
    return RagAudit.objects.filter(workspace=workspace).order_by("-created_at", "-id")


def rag_audit_get(*, workspace: Workspace, audit_id: int) -> RagAudit:
    """The audit, or the same 404 for a missing one and another workspace's."""
    audit = RagAudit.objects.filter(workspace=workspace, pk=audit_id).first()
    if audit is None:
        raise Http404("No such audit.")
    return audit
