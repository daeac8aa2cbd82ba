"""The ingest-job watchdog: a stage whose worker went silent is run again, or the job
fails visibly.

A worker killed mid-stage (SIGKILL, OOM, a lost machine) stops beating
(``services.job_heartbeat``). Another shard of the stage still claiming items takes
over what the dead one held (``services.ingest``: an item in one transaction at once, a
leased item once its lease is silent); when every shard of the stage is gone or has
stopped, the job's heartbeat goes silent and it is this watchdog's turn. The
filesystem broker deleted the message when the worker read it, so without it nothing
would ever run the stage again and the job would stay ``running``. Every
``SPANPROOF_JOB_WATCH_SECONDS`` the beat task calls :func:`ingest_jobs_watch`, which
looks at active jobs whose heartbeat is older than
``SPANPROOF_JOB_STALE_SECONDS``:

- a stage that a worker had taken (``runner`` set) is re-enqueued (all its shards), and
  counted (``stage_attempts``); after ``SPANPROOF_JOB_MAX_ATTEMPTS`` silent runners of one stage
  the job fails with the reason in ``errors``;
- a stage still waiting for a worker (``runner`` empty: a busy or absent worker, or a
  message lost before it started) is enqueued once more per stale period, uncounted:
  waiting in a long queue is not a failure.

The same round sends again the exclusion of a cancelled job's unjudged claims
(``services.ingest.ingest_job_cancelled_claims_exclude``) that has not moved for the
stale period: its worker died mid-way, or its message was lost; it goes on from the
claims still unjudged.

Re-running a stage is safe: done items are skipped (``IngestItem``), an item that runs in
one transaction is claimed under a row lock, a leased one is taken over only once its
lease is silent, and every item is idempotent.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from verifier.models import IngestJob, IngestStatus
from verifier.models.ingest import STAGE_ORDER
from verifier.selectors.ingest import (
    CANCEL_EXCLUSION,
    ingest_cancel_exclusions_stalled,
    ingest_jobs_stalled,
)
from verifier.services.ingest import (
    WorkerSilent,
    _enqueue,
    _record_error,
    ingest_job_cancelled_claims_exclude_enqueue,
)

logger = logging.getLogger(__name__)


@dataclass
class WatchReport:
    """``requeued``: every job enqueued again; ``resent``: those of them that were still
    waiting for a worker (no lease taken: sent again, uncounted), the rest had a worker
    that went silent; ``failed``: given up after too many silent workers."""

    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    resent: list[int] = field(default_factory=list)
    excluding: list[int] = field(default_factory=list)


def ingest_cancel_exclusions_watch(*, now: datetime, report: WatchReport) -> None:
    """Send again the exclusion of a cancelled job's unjudged claims that stopped
    before it finished (``services.ingest.ingest_job_cancelled_claims_exclude``: a
    worker killed mid-way, a message lost): it goes on from the claims still unjudged.
    Its beat is moved to now, so it is sent once per stale period."""
    for job in ingest_cancel_exclusions_stalled(now=now):
        with transaction.atomic():
            locked = (
                IngestJob.objects.select_for_update(skip_locked=True)
                .filter(pk=job.pk, status=IngestStatus.CANCELLED)
                .only("progress")
                .first()
            )
            progress = (locked.progress if locked is not None else None) or {}
            entry = progress.get(CANCEL_EXCLUSION)
            if not entry or entry.get("completed"):
                continue
            entry["beat_at"] = now.isoformat()
            IngestJob.objects.filter(pk=job.pk).update(progress=progress)
            ingest_job_cancelled_claims_exclude_enqueue(job_id=job.pk)
        report.excluding.append(job.pk)
        logger.warning(
            "ingest job %s: the exclusion of its unjudged claims after the cancel stopped "
            "before it finished; sent again",
            job.pk,
        )


def ingest_jobs_watch(*, now: datetime | None = None) -> WatchReport:
    now = now or timezone.now()
    report = WatchReport()
    ingest_cancel_exclusions_watch(now=now, report=report)
    with transaction.atomic():
        for job in ingest_jobs_stalled(now=now).select_for_update(skip_locked=True, of=("self",)):
            stage = job.stage or STAGE_ORDER[0]
            if not job.runner:
                IngestJob.objects.filter(pk=job.pk).update(heartbeat_at=now)
                _enqueue(job.pk, stage)
                report.requeued.append(job.pk)
                report.resent.append(job.pk)
                continue
            attempts = job.stage_attempts + 1
            if attempts >= settings.SPANPROOF_JOB_MAX_ATTEMPTS:
                _record_error(
                    job,
                    stage,
                    "*",
                    WorkerSilent(
                        f"the worker running stage {stage} went silent {attempts} times "
                        f"(no heartbeat for {settings.SPANPROOF_JOB_STALE_SECONDS} s); "
                        "gave up"
                    ),
                )
                IngestJob.objects.filter(pk=job.pk).update(
                    status=IngestStatus.FAILED,
                    errors=job.errors,
                    finished_at=now,
                    runner="",
                    stage_attempts=attempts,
                )
                report.failed.append(job.pk)
                logger.error(
                    "ingest job %s failed: stage %s lost %s workers", job.pk, stage, attempts
                )
                continue
            IngestJob.objects.filter(pk=job.pk).update(
                runner="", heartbeat_at=now, stage_attempts=attempts
            )
            _enqueue(job.pk, stage)
            report.requeued.append(job.pk)
            logger.warning(
                "ingest job %s: the worker running %s went silent; re-enqueued (%s)",
                job.pk,
                stage,
                attempts,
            )
    return report
