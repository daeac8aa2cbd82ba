"""A stage re-sent while one of its first run's shards still works on an item: the
re-sent shard finds that item held and leaves; the old shard finishes it and moves the
job on (or hands the stage over), at once and exactly once, instead of leaving the job
at the stage until the next stale period."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import IngestItem, IngestJob, IngestStage, IngestStatus
from verifier.selectors.ingest import claim_range_keys
from verifier.services import ingest_stages
from verifier.services.enqueue import ingest_stage_task_name
from verifier.services.ingest import ingest_stage_run
from verifier.services.ingest_watch import ingest_jobs_watch


@pytest.fixture(autouse=True)
def _long_stale_period(settings):
    """The default stale period: a fresh heartbeat stays fresh for the whole test."""
    settings.SPANPROOF_JOB_STALE_SECONDS = 300
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3


def _watchdog_resends(job_id: int) -> None:
    """The job's heartbeat went silent (a heartbeat thread that died, a paused process)
    while a shard still runs an item: the watchdog resets the lease and re-sends."""
    IngestJob.objects.filter(pk=job_id).update(heartbeat_at=timezone.now() - timedelta(seconds=400))
    report = ingest_jobs_watch()
    assert report.requeued == [job_id]


def _hook(stage: str, monkeypatch, during: Callable[[str], None], **changes) -> None:
    """Run ``during(key)`` inside the stage's real work on each item."""
    spec = ingest_stages.STAGES[stage]

    def run_item(job: IngestJob, key: str) -> object:
        during(key)
        return spec.run_item(job, key)

    monkeypatch.setitem(ingest_stages.STAGES, stage, replace(spec, run_item=run_item, **changes))


def _sent(callbacks, stage: str) -> int:
    """How many on-commit callbacks send ``stage``'s shards."""
    name = ingest_stage_task_name(stage)
    return sum(
        1
        for callback in callbacks
        for cell in callback.__closure__ or ()
        if getattr(cell.cell_contents, "name", None) == name
    )


def test_the_old_shard_that_finishes_the_last_leased_item_moves_the_job_on(
    workspace, monkeypatch, django_capture_on_commit_callbacks
):
    job = unstarted_job(workspace)
    resent: list[str | None] = []

    def during(key: str) -> None:
        item = IngestItem.objects.get(job=job, stage=IngestStage.EXTRACT, key=key)
        if item.position == 1 and not resent:  # the last item, leased to this shard
            _watchdog_resends(job.pk)
            # the re-sent shard: the only item left is leased (fresh heartbeat): it leaves
            resent.append(ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT))

    _hook(IngestStage.EXTRACT, monkeypatch, during)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        moved = ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT)

    assert resent == [None]
    assert moved == IngestStage.RELATE
    job.refresh_from_db()
    assert job.status == IngestStatus.RUNNING and job.stage == IngestStage.RELATE
    assert job.progress["extract"]["done"] == job.progress["extract"]["total"] == 2
    # the relate stage was sent once: the extract stage (watchdog) and relate
    assert [_sent(callbacks, s) for s in (IngestStage.EXTRACT, IngestStage.RELATE)] == [1, 1]
    # a late shard of the finished stage moves nothing twice
    assert ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT) is None
    job.refresh_from_db()
    assert job.stage == IngestStage.RELATE


@pytest.mark.django_db(transaction=True)
def test_the_old_shard_of_a_serial_stage_hands_over_the_items_left(workspace, monkeypatch):
    """Relate runs one item at a time: the re-sent shard cannot take the stage's lock
    while the old shard runs an item, and leaves; the old shard, no longer the lease's,
    stops between items and sends the stage again for the items left. (Tasks run
    eagerly: the watchdog's message runs the re-sent shard, the hand-over the rest.)"""
    job = unstarted_job(workspace)
    with transaction.atomic():  # extract, without running the stages after it
        assert ingest_stage_run(job_id=job.pk, stage=IngestStage.EXTRACT) == IngestStage.RELATE
        connection.run_on_commit.clear()
    started, resume = threading.Event(), threading.Event()

    def during(key: str) -> None:
        if not started.is_set():  # the first item
            started.set()
            assert resume.wait(30)

    _hook(
        IngestStage.RELATE,
        monkeypatch,
        during,
        items=lambda job: claim_range_keys(job, 1),  # one claim an item: several items
    )
    outcome: list[str | None] = []

    def old_shard() -> None:
        try:
            outcome.append(ingest_stage_run(job_id=job.pk, stage=IngestStage.RELATE))
        finally:
            connection.close()

    thread = threading.Thread(target=old_shard)
    thread.start()
    try:
        assert started.wait(30)
        _watchdog_resends(job.pk)  # its shard runs now, finds the stage's lock taken
        job.refresh_from_db()
        assert job.stage == IngestStage.RELATE
    finally:
        resume.set()
        thread.join(120)
    assert outcome == [None]  # the old shard moved nothing itself
    items = IngestItem.objects.filter(job=job, stage=IngestStage.RELATE)
    assert items.count() > 1 and not items.exclude(status="done").exists()
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, (job.stage, job.errors)
