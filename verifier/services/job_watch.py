"""The watchdog of the background jobs that hold a lease and beat
(``services.job_heartbeat``): verification batches, audit-pack exports, calibrator
changes, the review queue's bulk send-backs to the judge (ingest jobs, run in stages,
have their own: ``services.ingest_watch``).

Every ``SPANPROOF_JOB_WATCH_SECONDS`` a beat task calls :func:`jobs_watch` for one job
model: a job whose worker went silent for ``SPANPROOF_JOB_STALE_SECONDS`` is enqueued
again (counted in ``attempts``) and fails, with the reason in ``error``, after
``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers; a job still waiting in the queue is
enqueued once more per stale period, uncounted. Each job's own module says why running
it again is safe.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from verifier.models.jobs import LeasedJob
from verifier.selectors.jobs import jobs_stalled
from verifier.services.enqueue import task_enqueue_on_commit

logger = logging.getLogger(__name__)


@dataclass
class WatchReport:
    """``requeued``: every job enqueued again; ``resent``: those of them that were still
    waiting for a worker (no lease taken: sent again, uncounted), the rest had a worker
    that went silent; ``failed``: given up after too many silent workers."""

    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    resent: list[int] = field(default_factory=list)


def jobs_watch(
    *, model: type[LeasedJob], task: str, what: str, now: datetime | None = None
) -> WatchReport:
    """Re-enqueue (as task ``task``) or fail the stalled jobs of ``model``; ``what`` names
    one in the error and the log ("verification job", "audit-pack export", …)."""
    now = now or timezone.now()
    report = WatchReport()
    rows = model._default_manager
    with transaction.atomic():
        stalled = jobs_stalled(model, now=now).select_for_update(skip_locked=True, of=("self",))
        for job in stalled:
            pk = int(job.pk)
            if not job.runner:
                rows.filter(pk=pk).update(heartbeat_at=now)
                task_enqueue_on_commit(task, pk)
                report.requeued.append(pk)
                report.resent.append(pk)
                continue
            attempts = job.attempts + 1
            if attempts >= settings.SPANPROOF_JOB_MAX_ATTEMPTS:
                # each job model declares its own ``status`` (with ``failed`` among them)
                rows.filter(pk=pk).update(  # type: ignore[misc]
                    status="failed",
                    error=(
                        f"the worker running this {what} went silent {attempts} times (no "
                        f"heartbeat for {settings.SPANPROOF_JOB_STALE_SECONDS} s); gave up"
                    ),
                    finished_at=now,
                    runner="",
                    attempts=attempts,
                )
                report.failed.append(pk)
                logger.error("%s %s failed: lost %s workers", what, pk, attempts)
                continue
            rows.filter(pk=pk).update(runner="", heartbeat_at=now, attempts=attempts)
            task_enqueue_on_commit(task, pk)
            report.requeued.append(pk)
            logger.warning("%s %s: its worker went silent; re-enqueued", what, pk)
    return report
