"""Whether a Celery worker is alive, and since when a job has been waiting for one.

A worker beats every ``WORKER_BEAT_SECONDS`` (``verifier.worker_liveness``); one that has
not beaten for ``WORKER_STALE_SECONDS`` is not live. A queued or running job with no
live worker is "waiting for a worker" since the later of its own last sign of progress
(its heartbeat, else its creation) and the last beat of any worker. Tasks run eagerly
(``CELERY_TASK_ALWAYS_EAGER``) need no worker, so nothing waits then.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Final

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from verifier import vocabulary
from verifier.models import IngestJob, WorkerBeat

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


# A worker holding a job row beats it this many times a SPANPROOF_JOB_STALE_SECONDS
# (``services.job_heartbeat``), the silence after which the watchdogs count it gone.
BEATS_PER_STALE_PERIOD: Final = 5
# A job row silent for this many beats has lost its worker as far as its page can tell,
# long before the watchdog's stale period runs out.
SILENT_AFTER_BEATS: Final = 2


def stale_after() -> timedelta:
    """How long a job may go without a heartbeat before its worker counts as gone."""
    return timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS)


def job_worker_silence(job: Any, *, waiting: bool, now: datetime) -> dict[str, Any] | None:
    """Since when the worker holding ``job`` (``runner``: an ingest job's stage, or a
    job that holds a lease, ``models.jobs.LeasedJob``) has not beaten, and by when the
    watchdog (``services.ingest_watch``, ``services.job_watch``) sends it to another
    worker or, after ``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers (an ingest stage's
    ``stage_attempts``, another job's ``attempts``), fails the job; None while it beats,
    before a worker takes it, for a finished job, and while no worker is live at all
    (the waiting-for-a-worker alert says that, and no watchdog runs then). The console's
    job pages show it with ``partials/_job_worker_silence.html``."""
    if waiting or job.status not in ("queued", "running") or not job.runner:
        return None
    ingest = isinstance(job, IngestJob)
    attempts = job.stage_attempts if ingest else job.attempts
    since = job.heartbeat_at
    stale = stale_after()
    if since is None or now - since <= stale / BEATS_PER_STALE_PERIOD * SILENT_AFTER_BEATS:
        return None
    by = since + stale + timedelta(seconds=settings.SPANPROOF_JOB_WATCH_SECONDS)
    return {
        "since": since,
        "by": by,
        # the watchdog's round is late: its beat schedule is not running
        "overdue": now > by,
        "fails": attempts + 1 >= settings.SPANPROOF_JOB_MAX_ATTEMPTS,
        # what the silent workers are counted for (the watchdog's count)
        "counted_for": "stage" if ingest else "job",
        "term": vocabulary.JOB_LIVENESS["worker_silent"],
    }


def job_liveness(job: Any) -> dict[str, Any]:
    """What a job page says of the job's worker, one rule for every job page (ingest,
    verification, audit pack, calibrator change): ``waiting_since`` (no worker is live:
    ``partials/_waiting_for_worker.html``), ``worker_silence`` (the worker holding it went
    silent while another is alive: ``partials/_job_worker_silence.html``) and
    ``max_attempts`` (the silent workers after which the watchdog fails it)."""
    waiting_since = job_waiting_since(job)
    return {
        "waiting_since": waiting_since,
        "worker_silence": job_worker_silence(
            job, waiting=waiting_since is not None, now=timezone.now()
        ),
        "max_attempts": settings.SPANPROOF_JOB_MAX_ATTEMPTS,
    }
