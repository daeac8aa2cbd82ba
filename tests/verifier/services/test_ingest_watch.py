"""The ingest watchdog: a stage whose worker went silent runs again (each item once),
or the job fails with the reason; a live runner is never doubled; /healthz lists them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import Claim, IngestJob, IngestStage, IngestStatus
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_watch import ingest_jobs_watch


@pytest.fixture(autouse=True)
def _short_stale_period(settings):
    settings.SPANPROOF_JOB_STALE_SECONDS = 60
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3


def _silent_runner(job: IngestJob, *, stage: str, seconds_ago: int = 120) -> None:
    """What a worker SIGKILLed mid-stage leaves behind: the job leased to it, its
    heartbeat stopped."""
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=stage,
        runner="dead-worker",
        heartbeat_at=timezone.now() - timedelta(seconds=seconds_ago),
    )


def test_a_silent_stage_is_run_again_and_the_job_completes_with_each_item_once(
    workspace, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)  # both versions extracted
    job.refresh_from_db()
    claims = Claim.objects.filter(ingest_job=job).count()
    # the worker died after the first relate item, before the stage finished
    _silent_runner(job, stage=IngestStage.RELATE)

    with django_capture_on_commit_callbacks(execute=True):
        report = ingest_jobs_watch()

    assert report.requeued == [job.pk] and report.failed == []
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, job.errors
    assert job.stage_attempts == 0  # reset when the stage moved on
    assert Claim.objects.filter(ingest_job=job).count() == claims
    for stage in STAGE_ORDER:
        entry = job.progress[stage]
        assert sorted(entry["completed"]) == sorted(set(entry["completed"])), stage
        assert entry["done"] == entry["total"] == len(entry["completed"]), stage


def test_a_live_runner_is_not_doubled(workspace):
    job = unstarted_job(workspace)
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.EXTRACT,
        runner="alive",
        heartbeat_at=timezone.now(),
    )
    # a redelivered message (Redis after the visibility timeout) for the same stage
    assert ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT) is None
    assert not Claim.objects.filter(ingest_job=job).exists()
    assert ingest_jobs_watch().requeued == []


def test_a_runner_presumed_dead_writes_nothing_more(workspace):
    job = unstarted_job(workspace)
    _silent_runner(job, stage=IngestStage.EXTRACT)
    with_lease = IngestJob.objects.get(pk=job.pk)
    IngestJob.objects.filter(pk=job.pk).update(runner="the-new-one", heartbeat_at=timezone.now())
    from verifier.services.ingest import _run_items

    assert _run_items(with_lease, IngestStage.EXTRACT) is None
    job.refresh_from_db()
    assert job.progress.get(IngestStage.EXTRACT, {}).get("completed", []) == []
    assert job.stage == IngestStage.EXTRACT


def test_a_job_that_keeps_losing_its_worker_fails_with_the_reason(
    workspace, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)
    for attempt in (1, 2):
        _silent_runner(job, stage=IngestStage.EXTRACT)
        with django_capture_on_commit_callbacks(execute=False) as enqueued:
            report = ingest_jobs_watch()
        assert report.requeued == [job.pk] and len(enqueued) == 1
        job.refresh_from_db()
        assert job.stage_attempts == attempt and job.status == IngestStatus.RUNNING
    _silent_runner(job, stage=IngestStage.EXTRACT)
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        report = ingest_jobs_watch()
    assert report.failed == [job.pk] and enqueued == []
    job.refresh_from_db()
    assert job.status == IngestStatus.FAILED and job.finished_at
    [error] = job.errors
    assert error["stage"] == IngestStage.EXTRACT and error["item"] == "*"
    assert "went silent 3 times" in error["error"]


def test_a_stage_waiting_in_the_queue_is_enqueued_again_without_counting(
    workspace, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)  # never started: its message was lost
    IngestJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(seconds=120))
    with django_capture_on_commit_callbacks(execute=True):
        report = ingest_jobs_watch()
    assert report.requeued == [job.pk]
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED and job.stage_attempts == 0


def test_healthz_lists_stuck_jobs(workspace):
    job = unstarted_job(workspace)
    _silent_runner(job, stage=IngestStage.GROUP)
    body = Client().get("/healthz").json()
    check = body["checks"]["ingest_jobs"]
    assert check["ok"] is False and check["stale_after_seconds"] == 60
    assert [(j["id"], j["stage"], j["status"]) for j in check["stuck"]] == [
        (job.pk, "group", "running")
    ]
    IngestJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now())
    assert Client().get("/healthz").json()["checks"]["ingest_jobs"] == {
        "ok": True,
        "stale_after_seconds": 60,
        "stuck": [],
    }
