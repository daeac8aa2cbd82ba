"""The audit-pack job watchdog (``services.job_watch``), as for verification jobs: an
export whose worker went silent is enqueued again, and fails after
``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers. Running a job again is safe: the export
starts over into a fresh file.
"""

from __future__ import annotations

from datetime import datetime

from verifier.models import AuditPackJob
from verifier.services.enqueue import RUN_AUDIT_PACK_JOB
from verifier.services.job_watch import WatchReport, jobs_watch


def audit_pack_jobs_watch(*, now: datetime | None = None) -> WatchReport:
    return jobs_watch(model=AuditPackJob, task=RUN_AUDIT_PACK_JOB, what="export", now=now)
