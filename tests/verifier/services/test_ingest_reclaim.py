"""A restarted worker takes back at once the stages its killed predecessor on this host
held (``worker_ready`` → ``services.job_reclaim``), never one a live worker runs."""

from __future__ import annotations

import logging
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from celery.signals import worker_ready
from django.utils import timezone

from config.celery import reclaim_dead_leases
from tests.verifier.pipeline.conftest import DOC_A, unstarted_job
from verifier.models import IngestItem, IngestJob, IngestStage, IngestStatus
from verifier.services.ingest import ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.job_heartbeat import _host_tag, new_runner, runner_died_here
from verifier.services.job_reclaim import ingest_jobs_reclaim_dead_here, queued_grace


@pytest.fixture(autouse=True)
def _long_stale_period(settings):
    """The default stale period: a fresh heartbeat stays fresh for the whole test."""
    settings.SPANPROOF_JOB_STALE_SECONDS = 300
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3


def _token(pid: int) -> str:
    return f"{pid}.{_host_tag()}.{uuid.uuid4().hex}"


@pytest.fixture
def dead_runner() -> str:
    """The lease token of a worker process of this host that was killed."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return _token(process.pid)


@pytest.fixture
def live_runner() -> Iterator[str]:
    """The lease token of a worker process of this host that still runs."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        yield _token(process.pid)
    finally:
        process.kill()
        process.wait()


def _leased(job: IngestJob, runner: str) -> None:
    """The job at its relate stage, leased to ``runner`` with a heartbeat seconds old."""
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.RELATE,
        runner=runner,
        heartbeat_at=timezone.now(),
    )


def test_tokens_name_their_process_and_host(dead_runner, live_runner):
    assert len(new_runner()) <= 64  # the runner columns' width
    assert not runner_died_here(new_runner())  # this process
    assert runner_died_here(dead_runner)
    assert not runner_died_here(live_runner)
    other_host = dead_runner.split(".")
    other_host[1] = "0" * 12
    assert not runner_died_here(".".join(other_host))
    assert not runner_died_here("dead-worker") and not runner_died_here("")


def test_the_worker_ready_signal_reclaims_dead_leases():
    assert reclaim_dead_leases in [ref() for _, ref in worker_ready.receivers]


@pytest.mark.django_db(transaction=True)
def test_a_stage_of_this_hosts_dead_worker_runs_again_when_a_worker_starts(workspace, dead_runner):
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)
    _leased(job, dead_runner)

    reclaim_dead_leases()  # what a starting worker runs (tasks eager: the stage runs)

    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, job.errors
    assert job.runner != dead_runner


def test_a_dead_workers_stage_is_counted_and_its_item_lease_silenced(workspace, dead_runner):
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)
    _leased(job, dead_runner)
    item = IngestItem.objects.filter(job=job, stage=IngestStage.EXTRACT).first()
    IngestItem.objects.filter(pk=item.pk).update(
        status="running", runner=dead_runner, heartbeat_at=timezone.now()
    )

    report = ingest_jobs_reclaim_dead_here()  # on-commit not run: nothing executes

    assert report.requeued == [job.pk]
    job.refresh_from_db()
    assert job.runner == "" and job.stage_attempts == 1
    item.refresh_from_db()
    assert item.heartbeat_at < timezone.now() - timezone.timedelta(seconds=300)


def test_a_stage_held_by_a_live_worker_is_left_alone(workspace, live_runner):
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)
    _leased(job, live_runner)
    before = IngestJob.objects.get(pk=job.pk)

    report = ingest_jobs_reclaim_dead_here()

    assert report.requeued == [] and report.failed == []
    job.refresh_from_db()
    assert (job.runner, job.heartbeat_at, job.stage_attempts) == (
        before.runner,
        before.heartbeat_at,
        0,
    )


def test_a_dead_runners_stage_another_live_shard_still_runs_is_left_alone(
    workspace, dead_runner, live_runner
):
    """The shards of a stage share the token of the first: when that one's process died
    but a shard of another process still holds an item, the stage is still running."""
    job = unstarted_job(workspace)
    _leased(job, dead_runner)
    IngestJob.objects.filter(pk=job.pk).update(stage=IngestStage.EXTRACT)
    item = IngestItem.objects.create(
        job=job,
        stage=IngestStage.EXTRACT,
        key="k",
        position=0,
        status="running",
        runner=live_runner,
        heartbeat_at=timezone.now(),
    )

    report = ingest_jobs_reclaim_dead_here()

    assert report.requeued == []
    job.refresh_from_db()
    assert job.runner == dead_runner and job.stage_attempts == 0
    item.refresh_from_db()
    assert item.runner == live_runner and item.status == "running"


def _waiting_since(job: IngestJob, seconds: float) -> None:
    """The job queued, no lease, created ``seconds`` ago and never heard from."""
    IngestJob.objects.filter(pk=job.pk).update(
        runner="",
        heartbeat_at=None,
        created_at=timezone.now() - timezone.timedelta(seconds=seconds),
    )


@pytest.mark.django_db
def test_a_queued_job_whose_message_was_lost_is_sent_again_when_a_worker_starts(
    workspace, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)
    _waiting_since(job, queued_grace().total_seconds() + 5)

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        report = ingest_jobs_reclaim_dead_here()

    assert report.requeued == [job.pk] and report.failed == [] and enqueued
    job.refresh_from_db()
    assert (job.status, job.runner, job.stage_attempts) == (IngestStatus.QUEUED, "", 0)
    assert job.heartbeat_at > timezone.now() - timezone.timedelta(seconds=5)


@pytest.mark.django_db
def test_an_ingest_job_just_queued_is_not_sent_again(workspace, django_capture_on_commit_callbacks):
    job = unstarted_job(workspace)
    _waiting_since(job, 1)

    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        report = ingest_jobs_reclaim_dead_here()

    assert report.requeued == [] and enqueued == []
    job.refresh_from_db()
    assert job.heartbeat_at is None


@pytest.mark.django_db(transaction=True)
def test_a_lost_queued_job_runs_to_its_end_when_a_worker_starts(workspace):
    job = unstarted_job(workspace)
    _waiting_since(job, queued_grace().total_seconds() + 5)

    reclaim_dead_leases()  # what a starting worker runs (tasks eager: the stages run)

    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, job.errors


@pytest.mark.django_db(transaction=True)
def test_the_worker_start_log_line_counts_each_kind_of_job_sent_again(workspace, dead_runner):
    abandoned = unstarted_job(workspace)
    ingest_stage_run(job_id=abandoned.pk, stage=IngestStage.EXTRACT)
    _leased(abandoned, dead_runner)
    lost = ingest_job_create(
        workspace=workspace, sources=[SourceUpload(ref="source:c", text=DOC_A)], start=False
    )
    _waiting_since(lost, queued_grace().total_seconds() + 5)

    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("config.celery")
    logger.addHandler(handler)  # on the logger itself: the stages may configure logging
    try:
        reclaim_dead_leases()  # what a starting worker runs (tasks eager: the stages run)
    finally:
        logger.removeHandler(handler)

    lines = [r.getMessage() for r in records]
    assert lines == [
        "worker start, ingest jobs: 1 job whose worker died or went silent sent to the "
        "workers again; 1 job still waiting for a worker sent again (the message may have "
        f"been lost) (#{abandoned.pk}, #{lost.pk})"
    ]
