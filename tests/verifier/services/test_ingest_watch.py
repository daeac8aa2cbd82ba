"""The ingest watchdog: a stage whose worker went silent runs again (each item once),
or the job fails with the reason; a live runner is never doubled; /healthz lists them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import Claim, IngestItem, IngestJob, IngestStage, IngestStatus
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


def test_a_live_runners_item_is_not_doubled(workspace):
    """A second delivery of a stage joins it as another shard: it runs the items nobody
    holds and leaves alone the one a live shard has leased, until that lease goes
    silent."""
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)
    first_pass = Claim.objects.filter(ingest_job=job).count()
    # Back to before the extract stage, with version a leased to a live shard.
    Claim.objects.filter(ingest_job=job).delete()
    items = IngestItem.objects.filter(job=job, stage=IngestStage.EXTRACT).order_by("position")
    items.update(status="pending", done_by="", attempts=0)
    held = items.first()
    IngestItem.objects.filter(pk=held.pk).update(
        status="running", runner="alive-shard", heartbeat_at=timezone.now()
    )
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.EXTRACT,
        runner="alive",
        heartbeat_at=timezone.now(),
    )
    # a redelivered message (Redis after the visibility timeout) for the same stage
    assert ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT) is None
    job.refresh_from_db()
    assert job.stage == IngestStage.EXTRACT and job.progress["extract"]["done"] == 1
    other = IngestItem.objects.get(job=job, stage=IngestStage.EXTRACT, position=1)
    assert other.status == "done" and held.key != other.key
    sources = set(Claim.objects.filter(ingest_job=job).values_list("source_id", flat=True))
    assert sources == {_source_of(other)}
    assert ingest_jobs_watch().requeued == []
    # the live shard went silent: its lease is taken over and the stage finishes
    IngestItem.objects.filter(pk=held.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=120)
    )
    assert ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT) == IngestStage.RELATE
    assert Claim.objects.filter(ingest_job=job).count() == first_pass
    held.refresh_from_db()
    assert held.status == "done" and held.attempts == 1


def _source_of(item: IngestItem) -> int:
    from verifier.models import SourceVersion

    return SourceVersion.objects.get(pk=int(item.key.removeprefix("version:"))).source_id


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
