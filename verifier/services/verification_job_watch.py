"""The verification-job watchdog (``services.job_watch``), like ``services.ingest_watch``
for ingest jobs: a background verification job (``verification_job_run``) holds a lease
and beats; one whose worker went silent is enqueued again, and fails after
``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers. Running a job again is safe: claims
already judged are skipped, and a chunk's claims and the job's ``done`` commit together.
"""

from __future__ import annotations

from datetime import datetime

from verifier.models import VerificationJob
from verifier.services.enqueue import RUN_VERIFICATION_JOB
from verifier.services.job_watch import WatchReport, jobs_watch


def verification_jobs_watch(*, now: datetime | None = None) -> WatchReport:
    return jobs_watch(
        model=VerificationJob, task=RUN_VERIFICATION_JOB, what="verification job", now=now
    )
