"""Reviewer calibrators: per workspace and judge model, what the workspace's reviewers
decide, learned from their decisions (``verifier.judges.reviewer_calibrator``).

Each fit is an immutable, versioned row (its parameters, how many decisions it learned
from and its cross-validated figures; a trigger rejects any change to them). Only its
status moves: ``proposed`` (fitted, not used) → ``active`` (new verdicts of its judge in
its workspace pass through it; at most one per workspace and judge model) → ``retired``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.jobs import LeasedJob, chunked_percent
from verifier.models.workspaces import Workspace


class CalibratorStatus(models.TextChoices):
    PROPOSED = "proposed", "Proposed"
    ACTIVE = "active", "Active"
    RETIRED = "retired", "Retired"


class JudgeCalibrator(models.Model):
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="judge_calibrators"
    )
    judge_model = models.CharField(max_length=200, help_text="The judge model it calibrates.")
    judge_prompt_version = models.PositiveIntegerField(
        default=1,
        help_text=(
            "The judge's prompt (reading) version it learned from: it is used only while "
            "the judge reads with the same one."
        ),
    )
    version = models.PositiveIntegerField(help_text="1, 2, … per workspace and judge model.")
    params = models.JSONField(
        help_text="The fitted calibrator (verifier.judges.reviewer_calibrator.Calibrator)."
    )
    training_size = models.PositiveIntegerField(help_text="Human decisions it learned from.")
    supported_decisions = models.PositiveIntegerField()
    contradicted_decisions = models.PositiveIntegerField()
    floor = models.FloatField(help_text="The precision floor its thresholds were chosen for.")
    # Cross-validated (out-of-fold) figures on the decisions it learned from.
    cv_supported_precision = models.FloatField(null=True, blank=True)
    cv_supported_recall = models.FloatField(null=True, blank=True)
    cv_contradicted_precision = models.FloatField(null=True, blank=True)
    cv_contradicted_recall = models.FloatField(null=True, blank=True)
    cv_roc_auc = models.FloatField()
    cv_abstention = models.FloatField(
        null=True, blank=True, help_text="Judge + calibrator: share of the decisions undecided."
    )
    cv_entailed_precision = models.FloatField(null=True, blank=True)
    judge_abstention = models.FloatField(
        null=True, blank=True, help_text="The judge alone, on the same decisions."
    )
    judge_entailed_precision = models.FloatField(null=True, blank=True)
    decisions_through = models.BigIntegerField(
        default=0, help_text="The last human verdict (id) it learned from."
    )
    status = models.CharField(
        max_length=16, choices=CalibratorStatus.choices, default=CalibratorStatus.PROPOSED
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="None when the scheduled fit proposed it.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    activated_at = models.DateTimeField(null=True, blank=True)
    activated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "judge_model", "version"],
                name="judgecalibrator_unique_version",
            ),
            models.UniqueConstraint(
                fields=["workspace", "judge_model"],
                condition=models.Q(status="active"),
                name="judgecalibrator_one_active",
            ),
            models.CheckConstraint(
                condition=models.Q(status__in=[s.value for s in CalibratorStatus]),
                name="judgecalibrator_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"calibrator v{self.version} of {self.judge_model}"


class CalibratorChangeAction(models.TextChoices):
    ACTIVATE = "activate", "Activation"
    DEACTIVATE = "deactivate", "Deactivation"


class CalibratorChangeJobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    SUPERSEDED = "superseded", "Superseded"


class CalibratorChangeJob(LeasedJob):
    """The claims of a workspace brought in line, in the background, with the calibrator
    an admin just activated or deactivated (``services.calibrator_change_jobs``).

    The status change itself is immediate (new verdicts pass through the calibrator in
    force at once); the job reads the workspace's claims of ``judge_model`` again in
    chunks, in claim order, each chunk under its claims' row locks in its own
    transaction: it appends the verdicts that differ from what is in force and refreshes
    the states through the one state writer. ``done_through``: the last claim it
    finished, so a job whose worker died goes on from there. A later change of the same
    workspace and judge supersedes it. Liveness as on the other jobs
    (``services.job_heartbeat``)."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="calibrator_change_jobs"
    )
    calibrator = models.ForeignKey(
        JudgeCalibrator, on_delete=models.CASCADE, related_name="change_jobs"
    )
    action = models.CharField(max_length=16, choices=CalibratorChangeAction.choices)
    judge_model = models.CharField(max_length=200)
    cause = models.CharField(max_length=200, help_text="The state events' cause.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    status = models.CharField(
        max_length=16,
        choices=CalibratorChangeJobStatus.choices,
        default=CalibratorChangeJobStatus.QUEUED,
    )
    total = models.PositiveIntegerField(default=0, help_text="Claims in scope when it was made.")
    done = models.PositiveIntegerField(default=0, help_text="Claims read so far.")
    done_through = models.BigIntegerField(default=0, help_text="The last claim (id) finished.")
    appended = models.PositiveIntegerField(default=0, help_text="Verdicts appended.")
    moved = models.PositiveIntegerField(default=0, help_text="Claims whose state moved.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "judge_model", "-id"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status__in=[s.value for s in CalibratorChangeJobStatus]),
                name="calibratorchangejob_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_action_display().lower()} of calibrator job {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (
            CalibratorChangeJobStatus.SUCCEEDED,
            CalibratorChangeJobStatus.FAILED,
            CalibratorChangeJobStatus.SUPERSEDED,
        )

    @property
    def percent(self) -> int:
        return chunked_percent(
            done=self.done,
            total=self.total,
            succeeded=self.status == CalibratorChangeJobStatus.SUCCEEDED,
        )
