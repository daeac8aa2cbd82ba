"""A restarted worker takes back at once the jobs its killed predecessor on this host held.

A worker killed outright (``kill -9``, OOM) leaves its job leased (``runner``) with a
heartbeat that looks fresh for up to ``SPANPROOF_JOB_STALE_SECONDS``; the watchdogs
would only re-enqueue it after that and their next round. When a worker starts
(Celery's ``worker_ready``, ``config/celery.py``) it calls :func:`jobs_reclaim_dead_here`
for every kind of job that holds a lease and beats (``services.job_heartbeat``): a lease
whose token names a process of this host that no longer exists
(``services.job_heartbeat.runner_died_here``) is silent already, so its heartbeat is put
back past the stale period and that kind's own watchdog runs on it in the same
transaction. Nothing here decides what becomes of a job: the watchdog's rule does,
exactly as when the heartbeat had gone stale.

- ingest stages (:func:`ingest_jobs_reclaim_dead_here`, ``services.ingest_watch``): the
  stage is re-enqueued and counted, or the job fails after ``SPANPROOF_JOB_MAX_ATTEMPTS``
  silent runners. Item leases of a dead process of this host are made silent the same
  way, so the new shards take them over at once (counted, and given up after as many
  attempts);
- verification batches, audit-pack exports, calibrator changes and the review queue's
  bulk send-backs to the judge (:func:`leased_jobs_reclaim_dead_here`,
  ``services.job_watch``): the job is enqueued again and goes on (counted in
  ``attempts``), or fails after as many silent workers.

A job whose message was lost is sent again too: one queued (or between two ingest
stages) with no lease (``runner`` empty) for longer than :func:`queued_grace` (its
heartbeat, or its creation, that old), e.g. a broker folder removed, or a worker killed
after the broker handed it the message and before it took the lease. The broker cannot be
asked whether the message still waits, so such a job may as well be waiting behind
others: sending it again is harmless, because every job is taken through its lease
under the row's lock (``verification_job_run``, ``audit_pack_job_run``,
``calibrator_change_job_run``, ``review_rejudge_job_run``: a job finished or leased to a
live worker is left alone; an ingest stage's extra message joins the stage as one more
shard, done items skipped, and a message for a stage the job has left does nothing). The
watchdog's rule for a waiting job does it (sent again, uncounted, its heartbeat set to
now), so a job is sent at most once more per start and per stale period.

A job that a live worker still runs is left alone: one whose token names a live process
or another host, one whose row another transaction holds locked, and an ingest stage
with an item held by another live shard (an item lease with a fresh heartbeat, or an item
row locked by another transaction). Each kind is taken back in its own transaction: one
that fails (logged) is left to its watchdog and the others still go on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.db.models.functions import Coalesce
from django.utils import timezone

from verifier.models import (
    AuditPackJob,
    CalibratorChangeJob,
    IngestItem,
    IngestItemStatus,
    IngestJob,
    ReviewRejudgeJob,
    VerificationJob,
)
from verifier.models.jobs import LeasedJob
from verifier.selectors.jobs import UNFINISHED
from verifier.selectors.worker_beats import stale_after
from verifier.services import ingest_watch, job_watch
from verifier.services.audit_pack_job_watch import audit_pack_jobs_watch
from verifier.services.calibrator_change_jobs import calibrator_change_jobs_watch
from verifier.services.ingest import ACTIVE_STATUSES, OPEN_STATUSES
from verifier.services.job_heartbeat import runner_died_here
from verifier.services.review_rejudge_job_watch import review_rejudge_jobs_watch
from verifier.services.verification_job_watch import verification_jobs_watch

logger = logging.getLogger(__name__)

Watch = Callable[..., job_watch.WatchReport]
Report = ingest_watch.WatchReport | job_watch.WatchReport

# The jobs that hold a lease and beat on a row of their own, with each one's watchdog.
LEASED_JOBS: tuple[tuple[str, type[LeasedJob], Watch], ...] = (
    ("verification", VerificationJob, verification_jobs_watch),
    ("audit pack", AuditPackJob, audit_pack_jobs_watch),
    ("calibrator change", CalibratorChangeJob, calibrator_change_jobs_watch),
    ("review send-back", ReviewRejudgeJob, review_rejudge_jobs_watch),
)


# How long a job may wait for a worker with no lease before a starting worker counts its
# message as lost (a message sent while a worker runs is taken within seconds).
QUEUED_GRACE_SECONDS = 30


def queued_grace() -> timedelta:
    """How long a job may wait in the queue, no lease taken, before a starting worker
    sends it again: :data:`QUEUED_GRACE_SECONDS`, or the stale period when that is
    shorter (the watchdog sends it then anyway)."""
    return min(timedelta(seconds=QUEUED_GRACE_SECONDS), stale_after())


def _waiting_past_grace(rows: QuerySet[Any], *, now: datetime) -> QuerySet[Any]:
    """Of ``rows`` (jobs not finished), those with no lease heard from (their heartbeat,
    or their creation) longer ago than :func:`queued_grace`: their message may be lost."""
    waiting: QuerySet[Any] = (
        rows.filter(runner="")
        .annotate(beat=Coalesce("heartbeat_at", "created_at"))
        .filter(beat__lt=now - queued_grace())
    )
    return waiting


def _silent(now: datetime) -> datetime:
    """A heartbeat the watchdogs count as gone at ``now``."""
    return now - stale_after() - timedelta(seconds=1)


class _StageHeld(Exception):
    """Raised to roll back the savepoint of :func:`_stage_held_elsewhere` (and its row
    locks) when a live shard holds the stage."""


def _stage_held_elsewhere(job: IngestJob, *, now: datetime) -> bool:
    """Whether another live shard holds an item of the job's current stage: an open item
    whose row another transaction holds locked, or one leased (running, heard from within
    the stale period) to a shard that is not a dead process of this host.

    Decided on the rows themselves, locked here (``SKIP LOCKED``: a row another
    transaction holds counts as held): a shard takes an item's lease under that row's
    lock (``services.ingest._run_leased_item``). Not held, the rows stay locked until the
    caller's transaction ends, so no shard can take a lease between this answer and the
    watchdog acting on it (read first and locked after, a lease taken in between was
    missed and a live stage re-sent and counted as a silent one). Held, the locks are
    let go at once (a savepoint rolled back), so the live shards go on taking the pending
    items instead of finding them all locked and stopping. Call inside a transaction."""
    try:
        with transaction.atomic():
            items = IngestItem.objects.filter(
                job_id=job.pk, stage=job.stage, status__in=OPEN_STATUSES
            )
            locked = list(
                items.select_for_update(skip_locked=True).values_list(
                    "status", "runner", "heartbeat_at"
                )
            )
            fresh = now - stale_after()
            if len(locked) < items.count() or any(
                status == IngestItemStatus.RUNNING
                and heartbeat_at is not None
                and heartbeat_at >= fresh
                and not runner_died_here(runner)
                for status, runner, heartbeat_at in locked
            ):
                raise _StageHeld
    except _StageHeld:
        return True
    return False


def ingest_jobs_reclaim_dead_here(*, now: datetime | None = None) -> ingest_watch.WatchReport:
    """Make the stage and item leases of this host's dead worker processes silent, and
    the jobs waiting with no lease past :func:`queued_grace` (their message lost, or
    still queued: sent again either way), and run the watchdog
    (``services.ingest_watch.ingest_jobs_watch``) on them now."""
    now = now or timezone.now()
    silent = _silent(now)
    with transaction.atomic():
        items = (
            IngestItem.objects.filter(
                job__status__in=ACTIVE_STATUSES, status=IngestItemStatus.RUNNING
            )
            .exclude(runner="")
            .select_for_update(skip_locked=True, of=("self",))
            .values_list("pk", "runner")
        )
        dead_items = [pk for pk, runner in items if runner_died_here(runner)]
        IngestItem.objects.filter(pk__in=dead_items).update(heartbeat_at=silent)
        jobs = (
            IngestJob.objects.filter(status__in=ACTIVE_STATUSES)
            .exclude(runner="")
            .select_for_update(skip_locked=True)
        )
        abandoned = [
            job.pk
            for job in jobs
            if runner_died_here(job.runner) and not _stage_held_elsewhere(job, now=now)
        ]
        waiting = _waiting_past_grace(
            IngestJob.objects.filter(status__in=ACTIVE_STATUSES), now=now
        ).select_for_update(skip_locked=True, of=("self",))
        lost = [job.pk for job in waiting if not _stage_held_elsewhere(job, now=now)]
        IngestJob.objects.filter(pk__in=abandoned + lost).update(heartbeat_at=silent)
        return ingest_watch.ingest_jobs_watch(now=now)


def leased_jobs_reclaim_dead_here(
    *, model: type[LeasedJob], watch: Watch, now: datetime | None = None
) -> job_watch.WatchReport:
    """Make the leases of ``model`` jobs held by this host's dead worker processes
    silent, and the jobs waiting with no lease past :func:`queued_grace`, and run
    ``watch`` (the model's watchdog, ``services.job_watch``) on them now."""
    now = now or timezone.now()
    rows = model._default_manager
    with transaction.atomic():
        held = (
            # each job model declares its own ``status`` (``services.job_watch``)
            rows.filter(status__in=UNFINISHED)  # type: ignore[misc]
            .exclude(runner="")
            .select_for_update(skip_locked=True)
            .values_list("pk", "runner")
        )
        dead = [pk for pk, runner in held if runner_died_here(runner)]
        lost = (
            _waiting_past_grace(rows.filter(status__in=UNFINISHED), now=now)  # type: ignore[misc]
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        rows.filter(pk__in=[*dead, *lost]).update(heartbeat_at=_silent(now))
        return watch(now=now)


def jobs_reclaim_dead_here(*, now: datetime | None = None) -> dict[str, Report]:
    """Take back now the jobs of every kind whose holder was a process of this host that
    no longer exists; per kind (``"ingest"`` and the names in :data:`LEASED_JOBS`), what
    its watchdog re-enqueued or failed. A kind that could not be taken back is logged,
    left out and left to its watchdog."""
    now = now or timezone.now()
    kinds: list[tuple[str, Callable[[], Report]]] = [
        ("ingest", partial(ingest_jobs_reclaim_dead_here, now=now)),
        *(
            (name, partial(leased_jobs_reclaim_dead_here, model=model, watch=watch, now=now))
            for name, model, watch in LEASED_JOBS
        ),
    ]
    reports: dict[str, Report] = {}
    for name, reclaim in kinds:
        try:
            reports[name] = reclaim()
        except Exception:
            logger.exception("could not take back the %s jobs of a dead worker here", name)
    return reports
