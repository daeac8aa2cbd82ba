"""The verification-job watchdog, like ``services.ingest_watch`` for ingest jobs.

A background verification job (``verification_job_run``) holds a lease and beats
(``services.job_heartbeat``). Every ``SPANPROOF_JOB_WATCH_SECONDS`` the beat task calls
:func:`verification_jobs_watch`: a job whose worker went silent for
``SPANPROOF_JOB_STALE_SECONDS`` is enqueued again (counted in ``attempts``) and fails,
with the reason in ``error``, after ``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers; a job
still waiting in the queue is enqueued once more per stale period, uncounted. Running a
job again is safe: claims already judged are skipped, and a chunk's claims and the
job's ``done`` commit together.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from verifier.models import VerificationJob, VerificationJobStatus
from verifier.selectors.claim_verification import verification_jobs_stalled
from verifier.services.enqueue import RUN_VERIFICATION_JOB, task_enqueue_on_commit

logger = logging.getLogger(__name__)


@dataclass
class VerificationWatchReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def _enqueue(job_id: int) -> None:
    task_enqueue_on_commit(RUN_VERIFICATION_JOB, job_id)


def verification_jobs_watch(*, now: datetime | None = None) -> VerificationWatchReport:
    now = now or timezone.now()
    report = VerificationWatchReport()
    with transaction.atomic():
        stalled = verification_jobs_stalled(now=now).select_for_update(
            skip_locked=True, of=("self",)
        )
        for job in stalled:
            if not job.runner:
                VerificationJob.objects.filter(pk=job.pk).update(heartbeat_at=now)
                _enqueue(job.pk)
                report.requeued.append(job.pk)
                continue
            attempts = job.attempts + 1
            if attempts >= settings.SPANPROOF_JOB_MAX_ATTEMPTS:
                VerificationJob.objects.filter(pk=job.pk).update(
                    status=VerificationJobStatus.FAILED,
                    error=(
                        f"the worker running this job went silent {attempts} times (no "
                        f"heartbeat for {settings.SPANPROOF_JOB_STALE_SECONDS} s); gave up"
                    ),
                    finished_at=now,
                    runner="",
                    attempts=attempts,
                )
                report.failed.append(job.pk)
                logger.error("verification job %s failed: lost %s workers", job.pk, attempts)
                continue
            VerificationJob.objects.filter(pk=job.pk).update(
                runner="", heartbeat_at=now, attempts=attempts
            )
            _enqueue(job.pk)
            report.requeued.append(job.pk)
            logger.warning("verification job %s: its worker went silent; re-enqueued", job.pk)
    return report
