"""What every background job that holds a lease and beats has in common
(``services.job_heartbeat``, ``services.job_watch``): when it was made, started and
finished, why it failed, and its liveness — ``runner`` (the worker's token while one
holds it), ``heartbeat_at`` and ``attempts``."""

from __future__ import annotations

from django.db import models


class LeasedJob(models.Model):
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    runner = models.CharField(max_length=64, blank=True)
    attempts = models.PositiveSmallIntegerField(
        default=0, help_text="Times the watchdog re-enqueued the job after its worker went silent."
    )

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]


def chunked_percent(*, done: int, total: int, succeeded: bool) -> int:
    """How far a job that reads ``total`` claims in chunks has come, for its progress bar:
    100 once it succeeded, else the share read so far (0 for none to read)."""
    if succeeded:
        return 100
    return min(100, int(100 * done / total)) if total else 0
