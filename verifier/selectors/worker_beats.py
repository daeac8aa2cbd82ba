"""Whether a Celery worker is alive, and since when a job has been waiting for one.

A worker beats every ``WORKER_BEAT_SECONDS`` (``verifier.worker_liveness``); one that has
not beaten for ``WORKER_STALE_SECONDS`` is not live. A queued or running job with no
live worker is "waiting for a worker" since the later of its own last sign of progress
(its heartbeat, else its creation) and the last beat of any worker. Tasks run eagerly
(``CELERY_TASK_ALWAYS_EAGER``) need no worker, so nothing waits then.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from verifier.models import WorkerBeat

WORKER_BEAT_SECONDS: Final = 10
WORKER_STALE_SECONDS: Final = 30


def worker_last_beat() -> datetime | None:
    """The latest beat of any worker (None: none ever beat, or all stopped cleanly)."""
    value: datetime | None = WorkerBeat.objects.aggregate(last=Max("beat_at"))["last"]
    return value


def worker_is_live(*, last_beat: datetime | None, now: datetime) -> bool:
    return last_beat is not None and now - last_beat <= timedelta(seconds=WORKER_STALE_SECONDS)


def worker_wait_since(
    *, job_beat: datetime, last_beat: datetime | None, now: datetime | None = None
) -> datetime | None:
    """Since when an active job whose last sign of progress was ``job_beat`` has been
    waiting for a worker; None when a worker is live (or tasks run eagerly)."""
    if getattr(settings, "CELERY_TASK_ALWAYS_EAGER", False):
        return None
    now = now or timezone.now()
    if worker_is_live(last_beat=last_beat, now=now):
        return None
    return max(job_beat, last_beat) if last_beat is not None else job_beat


def job_waiting_since(job: object) -> datetime | None:
    """``worker_wait_since`` for an ingest or verification job that is queued or running
    (its ``status``, ``heartbeat_at``, ``created_at``); None for a finished one."""
    if getattr(job, "status", None) not in ("queued", "running"):
        return None
    job_beat = getattr(job, "heartbeat_at", None) or job.created_at  # type: ignore[attr-defined]
    return worker_wait_since(job_beat=job_beat, last_beat=worker_last_beat())
