"""A bulk "Send back to the judge" of the review queue, run in the background."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.jobs import LeasedJob, chunked_percent
from verifier.models.workspaces import Workspace


class ReviewRejudgeJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class ReviewRejudgeJob(LeasedJob):
    """Claims a reviewer sent back to the judge from the review queue's bulk action
    (``review.services.review_bulk_rejudge``), judged by a worker in chunks of claim
    order, each chunk under its claims' row locks in its own transaction, through the
    same service as the single item's send-back (``review.services.review_rejudge``).

    ``claim_ids``: the claims, in id order; ``seen``: public id -> the item version the
    confirmation page showed (null: not checked), so a claim someone decided, excluded or
    re-judged after it was shown is left alone, as a claim another reviewer holds when
    its chunk runs. ``done_through``: the last claim finished, so a job whose worker died
    goes on from there. ``skipped``: ``{"claim": public id, "why": "held" | "changed" |
    "excluded" | "gone", "holder": name}`` per claim left alone. Liveness as on the other
    jobs (``services.job_heartbeat``)."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="review_rejudge_jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The reviewer who sent the claims back.",
    )
    status = models.CharField(
        max_length=16,
        choices=ReviewRejudgeJobStatus.choices,
        default=ReviewRejudgeJobStatus.QUEUED,
    )
    claim_ids = models.JSONField(default=list, help_text="The claims (ids), in id order.")
    seen = models.JSONField(
        null=True, blank=True, help_text="Public id -> the item version the reviewer confirmed."
    )
    total = models.PositiveIntegerField(default=0, help_text="Claims sent back.")
    done = models.PositiveIntegerField(default=0, help_text="Claims read so far.")
    done_through = models.BigIntegerField(default=0, help_text="The last claim (id) finished.")
    judged = models.PositiveIntegerField(default=0, help_text="Claims the judge answered.")
    unbound = models.PositiveIntegerField(
        default=0, help_text="Claims with no span bound: the judge was not asked."
    )
    unanswered = models.PositiveIntegerField(
        default=0,
        help_text="Claims the judge gave no usable answer for (unreachable, malformed, omitted).",
    )
    moved = models.PositiveIntegerField(default=0, help_text="Claims whose state changed.")
    skipped = models.JSONField(default=list, help_text="The claims left alone, and why.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "-id"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=[s.value for s in ReviewRejudgeJobStatus]),
                name="reviewrejudgejob_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"send-back job {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (ReviewRejudgeJobStatus.SUCCEEDED, ReviewRejudgeJobStatus.FAILED)

    @property
    def percent(self) -> int:
        return chunked_percent(
            done=self.done,
            total=self.total,
            succeeded=self.status == ReviewRejudgeJobStatus.SUCCEEDED,
        )
