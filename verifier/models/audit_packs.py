"""Audit packs: the workspace's signing key and background pack exports."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.jobs import LeasedJob
from verifier.models.workspaces import Workspace


class WorkspaceSigningKey(models.Model):
    """The Ed25519 key that signs the workspace's audit packs. The public key is
    published (in every pack and on ``GET /connect/v1/audit-pack/public-key``); the
    private key is stored sealed under a key derived from the server's ``SECRET_KEY``
    (``verifier.audit_pack.signing``), so the database alone cannot sign."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, related_name="signing_key"
    )
    algorithm = models.CharField(max_length=16, default="Ed25519")
    public_key = models.CharField(max_length=64, help_text="32 bytes, hex.")
    sealed_private_key = models.BinaryField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(public_key__regex=r"^[0-9a-f]{64}$"),
                name="signingkey_public_key_hex",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.workspace_id}: {self.algorithm} {self.public_key[:16]}"


class AuditPackJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class AuditPackJob(LeasedJob):
    """An audit pack exported in the background (``services.audit_pack``): ``done`` of
    ``total`` claims written so far; when it succeeded, the archive is ``file_name`` in
    ``SPANPROOF_AUDIT_PACK_DIR`` with its size and SHA-256. Liveness as on the other jobs
    (``services.job_heartbeat``)."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="audit_pack_jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    exported_by = models.JSONField(
        default=dict, help_text="Who asked, as the pack records it: a role, never a name."
    )
    scope = models.JSONField(help_text="What the pack holds (verifier.audit_pack.scope).")
    status = models.CharField(
        max_length=16, choices=AuditPackJobStatus.choices, default=AuditPackJobStatus.QUEUED
    )
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    file_name = models.CharField(max_length=200, blank=True)
    size = models.BigIntegerField(null=True, blank=True)
    sha256 = models.CharField(max_length=64, blank=True)
    key_id = models.CharField(max_length=16, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"audit pack job {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (AuditPackJobStatus.SUCCEEDED, AuditPackJobStatus.FAILED)

    @property
    def percent(self) -> int:
        return 100 if self.finished else int(100 * self.done / self.total) if self.total else 0
