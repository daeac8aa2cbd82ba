from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.jobs import LeasedJob
from verifier.models.workspaces import Workspace


class VerificationJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class VerificationJob(LeasedJob):
    """A batch of submitted claims verified in the background
    (``POST /connect/v1/claims/verify`` with more claims than answer inline, or
    ``wait: 0``). The claims are stored when the batch is accepted; the job binds and
    judges them in chunks, counting ``done`` as it goes.

    ``items`` keeps the request's order: per submitted claim, ``{"index", "claim_id"}``
    (the claim's public id) or ``{"index", "error": {"code", "message"}}``.
    """

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="verification_jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    status = models.CharField(
        max_length=16, choices=VerificationJobStatus.choices, default=VerificationJobStatus.QUEUED
    )
    policy = models.CharField(max_length=64, blank=True, help_text="Rule-set policy name.")
    # Who submitted the batch, as its trace records it (``verifier.trace_caller``): the
    # job runs in a worker, after the request that knew the caller has ended.
    caller = models.JSONField(null=True, blank=True)
    items = models.JSONField(default=list)
    total = models.PositiveIntegerField(default=0, help_text="Claims to verify (errors excluded).")
    done = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"verification job {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (VerificationJobStatus.SUCCEEDED, VerificationJobStatus.FAILED)
