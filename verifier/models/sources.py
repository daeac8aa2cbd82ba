from __future__ import annotations

import hashlib

from django.db import models

from verifier.models.workspaces import Workspace


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Source(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sources")
    ref = models.CharField(
        max_length=200, help_text="Stable reference, e.g. source:nicomachean_ethics"
    )
    title = models.CharField(max_length=300)
    citation = models.CharField(max_length=500, blank=True)
    domain_pack = models.CharField(max_length=64, blank=True, default="general")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["ref"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "ref"], name="source_unique_ref"),
        ]

    def __str__(self) -> str:
        return self.ref


class SourceVersion(models.Model):
    """Exact text of a source at one point in time. Immutable (a trigger rejects UPDATE)."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["source_id", "-number"]
        indexes = [models.Index(fields=["sha256"], name="sourceversion_sha256")]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "number"], name="sourceversion_unique_number"
            ),
            models.CheckConstraint(
                condition=models.Q(sha256__regex=r"^[0-9a-f]{64}$"), name="sourceversion_sha256_hex"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source.ref} v{self.number} ({self.sha256[:12]})"
