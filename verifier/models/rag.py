from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.workspaces import Workspace


class RagAudit(models.Model):
    """One audited RAG answer: the answer, its id-keyed chunks and the audit result."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="rag_audits")
    answer = models.TextField()
    chunks = models.JSONField(help_text='[{"id": ..., "text": ...}] as submitted.')
    result = models.JSONField(help_text="The audit document as returned.")
    verdict = models.CharField(max_length=16)
    claims = models.ManyToManyField("verifier.Claim", related_name="rag_audits", blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
