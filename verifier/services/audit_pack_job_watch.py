"""The audit-pack job watchdog, as ``services.verification_job_watch`` is for verification
jobs: every ``SPANPROOF_JOB_WATCH_SECONDS`` the beat task calls
:func:`audit_pack_jobs_watch`; a job whose worker went silent for
``SPANPROOF_JOB_STALE_SECONDS`` is enqueued again (counted in ``attempts``) and fails,
with the reason in ``error``, after ``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers; a job
still waiting in the queue is enqueued once more per stale period, uncounted. Running a
job again is safe: the export starts over into a fresh file.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from verifier.models import AuditPackJob, AuditPackJobStatus
from verifier.selectors.audit_pack import audit_pack_jobs_stalled
from verifier.services.enqueue import RUN_AUDIT_PACK_JOB, task_enqueue_on_commit

logger = logging.getLogger(__name__)


@dataclass
class AuditPackWatchReport:
    requeued: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def _enqueue(job_id: int) -> None:
    task_enqueue_on_commit(RUN_AUDIT_PACK_JOB, job_id)


def audit_pack_jobs_watch(*, now: datetime | None = None) -> AuditPackWatchReport:
    now = now or timezone.now()
    report = AuditPackWatchReport()
    with transaction.atomic():
        stalled = audit_pack_jobs_stalled(now=now).select_for_update(skip_locked=True, of=("self",))
        for job in stalled:
            if not job.runner:
                AuditPackJob.objects.filter(pk=job.pk).update(heartbeat_at=now)
                _enqueue(job.pk)
                report.requeued.append(job.pk)
                continue
            attempts = job.attempts + 1
            if attempts >= settings.SPANPROOF_JOB_MAX_ATTEMPTS:
                AuditPackJob.objects.filter(pk=job.pk).update(
                    status=AuditPackJobStatus.FAILED,
                    error=(
                        f"the worker running this export went silent {attempts} times (no "
                        f"heartbeat for {settings.SPANPROOF_JOB_STALE_SECONDS} s); gave up"
                    ),
                    finished_at=now,
                    runner="",
                    attempts=attempts,
                )
                report.failed.append(job.pk)
                logger.error("audit pack job %s failed: lost %s workers", job.pk, attempts)
                continue
            AuditPackJob.objects.filter(pk=job.pk).update(
                runner="", heartbeat_at=now, attempts=attempts
            )
            _enqueue(job.pk)
            report.requeued.append(job.pk)
            logger.warning("audit pack job %s: its worker went silent; re-enqueued", job.pk)
    return report
