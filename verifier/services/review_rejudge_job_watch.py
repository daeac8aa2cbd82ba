"""The watchdog (``services.job_watch``) of the review queue's bulk send-backs to the judge
(``review.services.review_rejudge_job_run``), as for the other jobs: a job whose worker
went silent is enqueued again, and fails after ``SPANPROOF_JOB_MAX_ATTEMPTS`` silent
workers. Running a job again is safe: it goes on after the last chunk it finished (each
chunk and its progress are written in one transaction).
"""

from __future__ import annotations

from datetime import datetime

from verifier.models import ReviewRejudgeJob
from verifier.services.enqueue import RUN_REVIEW_REJUDGE_JOB
from verifier.services.job_watch import WatchReport, jobs_watch


def review_rejudge_jobs_watch(*, now: datetime | None = None) -> WatchReport:
    return jobs_watch(
        model=ReviewRejudgeJob,
        task=RUN_REVIEW_REJUDGE_JOB,
        what="send-back to the judge",
        now=now,
    )
