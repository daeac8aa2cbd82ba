from __future__ import annotations

from typing import Final

from django.conf import settings
from django.db import models

from verifier.models.workspaces import Workspace
from verifier.vocabulary import INGEST_STAGES, INGEST_STATUSES


class IngestStatus(models.TextChoices):
    # the labels are the one vocabulary's (``verifier.vocabulary.INGEST_STATUSES``)
    QUEUED = "queued", INGEST_STATUSES["queued"].label
    RUNNING = "running", INGEST_STATUSES["running"].label
    SUCCEEDED = "succeeded", INGEST_STATUSES["succeeded"].label
    # Finished, but part of the verification did not happen (e.g. the judge was
    # unreachable, so claims carry coverage gaps); ``warnings`` says how many and why.
    DEGRADED = "degraded", INGEST_STATUSES["degraded"].label
    FAILED = "failed", INGEST_STATUSES["failed"].label
    CANCELLED = "cancelled", INGEST_STATUSES["cancelled"].label


class IngestStage(models.TextChoices):
    # the labels are the one vocabulary's (``verifier.vocabulary.INGEST_STAGES``)
    EXTRACT = "extract", INGEST_STAGES["extract"].label
    RELATE = "relate", INGEST_STAGES["relate"].label
    GROUP = "group", INGEST_STAGES["group"].label
    EMBED = "embed", INGEST_STAGES["embed"].label
    VALIDATE = "validate", INGEST_STAGES["validate"].label
    REMEDIATE = "remediate", INGEST_STAGES["remediate"].label
    STORE = "store", INGEST_STAGES["store"].label


# The order the pipeline runs the stages in (``services.ingest`` enqueues each next one;
# the job page lists them in it).
STAGE_ORDER: Final[tuple[str, ...]] = (
    IngestStage.EXTRACT,
    IngestStage.RELATE,
    IngestStage.GROUP,
    IngestStage.EMBED,
    IngestStage.VALIDATE,
    IngestStage.REMEDIATE,
    IngestStage.STORE,
)


class IngestJob(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="ingest_jobs")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    label = models.CharField(max_length=200, blank=True)
    status = models.CharField(
        max_length=16, choices=IngestStatus.choices, default=IngestStatus.QUEUED
    )
    stage = models.CharField(max_length=16, choices=IngestStage.choices, blank=True)
    progress = models.JSONField(
        default=dict, blank=True, help_text="Per stage: {'done': n, 'total': m}."
    )
    errors = models.JSONField(default=list, blank=True, help_text="Per-item errors.")
    warnings = models.JSONField(
        default=list,
        blank=True,
        help_text="Why a finished job is degraded: [{code, message, count, causes}].",
    )
    payload = models.JSONField(default=dict, blank=True, help_text="What was uploaded.")
    quality_report = models.JSONField(null=True, blank=True)
    rule_set = models.ForeignKey(
        "verifier.RuleSet", on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Liveness of the current stage (services.ingest_watch): the worker running it holds
    # ``runner`` (a lease token, "" while the stage waits in the queue) and refreshes
    # ``heartbeat_at``; the watchdog re-enqueues a stage whose heartbeat went silent and
    # fails the job after SPANPROOF_JOB_MAX_ATTEMPTS silent runners.
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    runner = models.CharField(max_length=64, blank=True)
    stage_attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Times the watchdog re-enqueued the current stage."
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"job {self.pk} ({self.status})"


class IngestItemStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", INGEST_STATUSES["failed"].label
    # the job was cancelled before the item ran or finished (``ingest_job_cancel``)
    CANCELLED = "cancelled", INGEST_STATUSES["cancelled"].label


class IngestItem(models.Model):
    """One item of one stage of an ingest job (``services.ingest``): its claim.

    Every shard of a stage (a Celery task; several run at once on several workers)
    claims the next pending item with ``SELECT ... FOR UPDATE SKIP LOCKED``. An item that
    runs in one transaction holds that row lock until it commits its ``done`` mark, so a
    killed worker's item is pending again at once; an item that opens its own
    transactions (extract, store) is leased instead (``running``, ``runner``,
    ``heartbeat_at``) and taken over when its heartbeat is older than
    ``SPANPROOF_JOB_STALE_SECONDS``. ``done_by`` names the worker process that finished
    it (``host:pid``).
    """

    job = models.ForeignKey(IngestJob, on_delete=models.CASCADE, related_name="items")
    stage = models.CharField(max_length=16, choices=IngestStage.choices)
    key = models.CharField(max_length=200)
    position = models.PositiveIntegerField(help_text="Order within the stage.")
    status = models.CharField(
        max_length=16, choices=IngestItemStatus.choices, default=IngestItemStatus.PENDING
    )
    runner = models.CharField(max_length=64, blank=True, help_text="The shard holding a lease.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    done_by = models.CharField(
        max_length=200,
        blank=True,
        help_text="host:pid of the worker that finished (or holds) it.",
    )
    error = models.TextField(blank=True)
    prepared_at = models.DateTimeField(
        null=True, blank=True, help_text="When a waiting shard ran the item's prepare step."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["job", "stage", "key"], name="ingest_item_job_stage_key_uniq"
            )
        ]
        indexes = [
            models.Index(
                fields=["job", "stage", "status", "position"], name="ingest_item_claim_idx"
            )
        ]

    def __str__(self) -> str:
        return f"job {self.job_id} {self.stage} {self.key} ({self.status})"
