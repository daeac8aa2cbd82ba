"""A restarted worker takes back at once the ingest stages its killed predecessor held.

A worker killed outright (``kill -9``, OOM) leaves its job leased (``runner``) with a
heartbeat that looks fresh for up to ``SPANPROOF_JOB_STALE_SECONDS``; the watchdog
(``services.ingest_watch``) would only re-enqueue the stage after that and its next
round. When a worker starts (Celery's ``worker_ready``, ``config/celery.py``) it calls
:func:`ingest_jobs_reclaim_dead_here`: a lease whose token names a process of this host
that no longer exists (``services.job_heartbeat.runner_died_here``) is silent already, so
its heartbeat is put back past the stale period and the watchdog's own rule runs on it
in the same transaction: the stage is re-enqueued and counted, or the job fails after
``SPANPROOF_JOB_MAX_ATTEMPTS`` silent runners, exactly as when the heartbeat had gone
stale. Item leases of a dead process of this host are made silent the same way, so the
new shards take them over at once (counted, and given up after as many attempts).

A stage that a live worker still runs is left alone: a job whose token names a live
process or another host, and a stage with an item held by another live shard (an item
lease with a fresh heartbeat, or an item row locked by another transaction). A stage
still waiting in the queue (``runner`` empty) cannot be told apart from one another
worker is about to take; the watchdog keeps handling it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from verifier.models import IngestItem, IngestItemStatus, IngestJob
from verifier.services.ingest import ACTIVE_STATUSES, OPEN_STATUSES
from verifier.services.ingest_watch import WatchReport, ingest_jobs_watch
from verifier.services.job_heartbeat import runner_died_here, stale_after


def _stage_held_elsewhere(job: IngestJob, *, now: datetime) -> bool:
    """Whether another live shard holds an item of the job's current stage."""
    items = IngestItem.objects.filter(job_id=job.pk, stage=job.stage)
    leased = items.filter(
        status=IngestItemStatus.RUNNING, heartbeat_at__gte=now - stale_after()
    ).values_list("runner", flat=True)
    if any(not runner_died_here(runner) for runner in leased):
        return True
    open_items = items.filter(status__in=OPEN_STATUSES)
    free = open_items.select_for_update(skip_locked=True).values_list("pk", flat=True)
    return len(list(free)) < open_items.count()


def ingest_jobs_reclaim_dead_here(*, now: datetime | None = None) -> WatchReport:
    """Make the leases of this host's dead worker processes silent and run the watchdog
    (``services.ingest_watch.ingest_jobs_watch``) on them now."""
    now = now or timezone.now()
    silent = now - stale_after() - timedelta(seconds=1)
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
        IngestJob.objects.filter(pk__in=abandoned).update(heartbeat_at=silent)
        return ingest_jobs_watch(now=now)
