"""Celery tasks of the review console (found by Celery's autodiscovery): thin wrappers
that take ids and call one service. Their names are written once, in
``verifier.services.enqueue``."""

from __future__ import annotations

from celery import shared_task

from review.services import review_rejudge_job_run
from verifier.services.enqueue import RUN_REVIEW_REJUDGE_JOB
from verifier.services.review_rejudge_job_watch import review_rejudge_jobs_watch


@shared_task(name=RUN_REVIEW_REJUDGE_JOB)
def run_review_rejudge_job(job_id: int) -> str:
    """Send a bulk selection of the review queue back to the judge
    (``review.services.review_rejudge_job_run``)."""
    return review_rejudge_job_run(job_id=job_id).status


@shared_task(name="review.tasks.watch_review_rejudge_jobs")
def watch_review_rejudge_jobs() -> dict[str, list[int]]:
    """Beat task: the jobs' watchdog for the review queue's send-backs
    (``verifier.services.review_rejudge_job_watch``)."""
    report = review_rejudge_jobs_watch()
    return {"requeued": report.requeued, "failed": report.failed}
