from __future__ import annotations

from django.db import models

from verifier.models.workspaces import Workspace


class ValidatorRun(models.Model):
    """One run of the planted-ground-truth validator benchmark."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.SET_NULL, null=True, blank=True, related_name="validator_runs"
    )
    fixture = models.CharField(max_length=300)
    judge_model = models.CharField(max_length=200)
    runs = models.PositiveSmallIntegerField(default=1)
    metrics = models.JSONField()
    per_claim = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
