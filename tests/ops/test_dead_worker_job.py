"""An ingest job left ``running`` by a worker that no longer exists: the watchdog (beat's
``watch_ingest_jobs``) sends its stage to the workers again, and after
``SPANPROOF_JOB_MAX_ATTEMPTS`` silent workers fails it; the job's console page says so,
with the reason a person reads, and stops polling. Its status is never left ``running``
for ever."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import IngestJob, IngestStage, IngestStatus
from verifier.services.ingest_watch import ingest_jobs_watch
from verifier.services.worker_beats import worker_beat_record


@pytest.fixture(autouse=True)
def _a_worker_is_live(db, settings):
    """A live worker elsewhere (so the page's "waiting for a worker" does not apply): the
    one that held the job died on its own, as a prefork child killed by the OOM killer."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = 60
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 2
    worker_beat_record(hostname="celery@elsewhere:1")


def _left_by_a_dead_worker(job: IngestJob) -> None:
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.EXTRACT,
        runner="4242.dead",
        heartbeat_at=timezone.now() - timedelta(seconds=120),
    )


def test_the_watchdog_fails_the_job_and_its_page_says_why(
    workspace, reviewer_client, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)
    page = f"/ingest/jobs/{job.pk}/"

    _left_by_a_dead_worker(job)
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        assert ingest_jobs_watch().requeued == [job.pk]
    assert len(enqueued) == 1  # the stage is sent to the workers again
    job.refresh_from_db()
    assert (job.status, job.runner, job.stage_attempts) == (IngestStatus.RUNNING, "", 1)

    _left_by_a_dead_worker(job)  # and the next worker dies too
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        assert ingest_jobs_watch().failed == [job.pk]
    assert enqueued == []
    job.refresh_from_db()
    assert job.status == IngestStatus.FAILED and job.finished_at is not None

    response = reviewer_client.get(page, headers={"HX-Request": "true"})
    assert response.status_code == 286  # htmx stops polling: the job is over
    body = reviewer_client.get(page).content.decode()
    assert 'class="status-failed"' in body
    assert "Failed items" in body
    assert "the worker running stage extract went silent 2 times" in body
    assert "Waiting for a worker" not in body
