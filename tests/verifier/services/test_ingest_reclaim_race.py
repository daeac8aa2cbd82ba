"""A starting worker decides whether a dead runner's ingest stage is still held by a live
shard under the item rows' locks (``services.job_reclaim._stage_held_elsewhere``): a
shard that takes an item's lease while the reclaim looks is either seen, or finds the
item locked and takes nothing; a live lease is never missed, re-sent and counted as a
silent worker. Two threads on the real database."""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from tests.verifier.pipeline.conftest import DOC_A
from verifier.models import IngestItem, IngestJob, IngestStage, IngestStatus
from verifier.services.ingest import _run_leased_item
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.ingest_stage_spec import StageSpec
from verifier.services.ingest_stages import STAGES
from verifier.services.job_heartbeat import _host_tag, new_runner
from verifier.services.job_reclaim import ingest_jobs_reclaim_dead_here

WAIT_S = 20


@pytest.fixture(autouse=True)
def _long_stale_period(settings):
    settings.SPANPROOF_JOB_STALE_SECONDS = 300
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3


def _dead_runner() -> str:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return f"{process.pid}.{_host_tag()}.{uuid.uuid4().hex}"


def _pause_after_first_item_read_of_a_locked_job(
    paused: threading.Event, resume: threading.Event
) -> Callable[..., Any]:
    """An execute wrapper: once the reclaim has locked the ingest jobs, the first query
    on their items runs, then the reclaim waits until ``resume`` (the other shard has
    tried to take a lease)."""
    seen_job_lock = False

    def wrapper(execute, sql, params, many, context):
        nonlocal seen_job_lock
        result = execute(sql, params, many, context)
        if 'FROM "verifier_ingestjob"' in sql and "FOR UPDATE" in sql:
            seen_job_lock = True
        elif seen_job_lock and 'FROM "verifier_ingestitem"' in sql and not paused.is_set():
            paused.set()
            resume.wait(WAIT_S)
        return result

    return wrapper


@pytest.mark.django_db(transaction=True)
def test_a_lease_taken_while_a_starting_worker_looks_is_never_missed(workspace):
    job = ingest_job_create(
        workspace=workspace, sources=[SourceUpload(ref="source:a", text=DOC_A)], start=False
    )
    dead = _dead_runner()
    # The stage's first shard (its process now dead) took the lease; a shard of a live
    # process joined it and is between two items.
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.EXTRACT,
        runner=dead,
        heartbeat_at=timezone.now(),
    )
    job.refresh_from_db()
    for position, key in enumerate(STAGES[IngestStage.EXTRACT].items(job)):
        IngestItem.objects.create(job=job, stage=IngestStage.EXTRACT, key=key, position=position)

    paused, shard_tried, reclaim_done = threading.Event(), threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def hold(job: IngestJob, key: str) -> None:  # a long item: the lease is taken
        shard_tried.set()
        reclaim_done.wait(WAIT_S)

    def shard() -> None:
        try:
            paused.wait(WAIT_S)
            spec = StageSpec(lambda job: [], hold, own_transactions=True)
            outcome["shard ran an item"] = _run_leased_item(
                job, IngestStage.EXTRACT, spec, new_runner()
            )
        finally:
            shard_tried.set()
            connection.close()

    def reclaim() -> None:
        try:
            with connection.execute_wrapper(
                _pause_after_first_item_read_of_a_locked_job(paused, shard_tried)
            ):
                outcome["reclaim"] = ingest_jobs_reclaim_dead_here()
        finally:
            paused.set()
            reclaim_done.set()
            connection.close()

    threads = [threading.Thread(target=shard), threading.Thread(target=reclaim)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3 * WAIT_S)

    assert paused.is_set() and "reclaim" in outcome, outcome
    requeued = outcome["reclaim"].requeued == [job.pk]
    # Either the reclaim saw the live lease and left the stage alone, or it held the
    # items and the shard took none; never both a live lease and a re-sent stage.
    assert (requeued, outcome["shard ran an item"]) in {(True, False), (False, True)}, outcome


def _pause_after_the_stage_is_looked_at(
    paused: threading.Event, resume: threading.Event
) -> Callable[..., Any]:
    """An execute wrapper: once the reclaim has looked at the locked jobs' stages (its
    next query on the jobs), it waits until ``resume``, its transaction still open."""
    job_locks = 0

    def wrapper(execute, sql, params, many, context):
        nonlocal job_locks
        result = execute(sql, params, many, context)
        if 'FROM "verifier_ingestjob"' in sql and "FOR UPDATE" in sql:
            job_locks += 1
            if job_locks == 2 and not paused.is_set():
                paused.set()
                resume.wait(WAIT_S)
        return result

    return wrapper


@pytest.mark.django_db(transaction=True)
def test_a_stage_a_live_shard_holds_keeps_its_pending_items_takeable(workspace):
    """The reclaim finds the stage held (a live shard's lease) and leaves it alone; it
    must not keep its other items locked meanwhile, or the live shards find nothing to
    take, stop, and the stage waits for the watchdog."""
    job = ingest_job_create(
        workspace=workspace, sources=[SourceUpload(ref="source:a", text=DOC_A)], start=False
    )
    IngestJob.objects.filter(pk=job.pk).update(
        status=IngestStatus.RUNNING,
        stage=IngestStage.EXTRACT,
        runner=_dead_runner(),
        heartbeat_at=timezone.now(),
    )
    live = new_runner()  # a shard of this (live) process holds the first item
    IngestItem.objects.create(
        job=job,
        stage=IngestStage.EXTRACT,
        key="held",
        position=0,
        status="running",
        runner=live,
        heartbeat_at=timezone.now(),
    )
    pending = IngestItem.objects.create(job=job, stage=IngestStage.EXTRACT, key="next", position=1)

    paused, shard_done = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    def shard() -> None:
        try:
            paused.wait(WAIT_S)
            spec = StageSpec(lambda job: [], lambda job, key: None, own_transactions=True)
            outcome["shard ran an item"] = _run_leased_item(job, IngestStage.EXTRACT, spec, live)
        finally:
            shard_done.set()
            connection.close()

    def reclaim() -> None:
        try:
            with connection.execute_wrapper(
                _pause_after_the_stage_is_looked_at(paused, shard_done)
            ):
                outcome["reclaim"] = ingest_jobs_reclaim_dead_here()
        finally:
            paused.set()
            connection.close()

    threads = [threading.Thread(target=shard), threading.Thread(target=reclaim)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3 * WAIT_S)

    assert outcome["reclaim"].requeued == [], outcome
    assert outcome["shard ran an item"] is True, "the live shard found the pending item locked"
    pending.refresh_from_db()
    assert pending.status == "done"
