"""Ingest jobs: create, cancel, rerun, and the stage runner every pipeline task calls.

Stages run in the published order (extract → relate → group → embed → validate →
remediate → store), one Celery task each, chained with ``transaction.on_commit``.
A stage is a list of items with stable keys (a source version, a range of claim
ids); each item runs in its own transaction (extract and store items open their
own: extract calls the extractor with none open, store publishes on several
connections), so a failure is recorded on that item and never loses the rest.
Completed item keys are kept in ``job.progress[stage]``, so a rerun (a redelivered
task after a crash, or :func:`ingest_job_rerun`) skips them, and every item is
itself idempotent, so even a repeated item adds no rows.

Liveness: the worker running a stage takes a lease (``job.runner``, a fresh token) and
refreshes ``job.heartbeat_at`` from a background thread while it works
(``services.job_heartbeat``); a second
delivery of the same stage (Redis redelivering, the watchdog re-enqueueing) finds the
lease alive and does nothing, and a runner that lost its lease stops between items.
``services.ingest_watch`` re-enqueues a stage whose heartbeat went silent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Final

from django.db import transaction
from django.utils import timezone

from verifier.models import IngestJob, IngestStatus
from verifier.models.ingest import STAGE_ORDER
from verifier.services.job_heartbeat import job_heartbeat, lease_is_live, new_runner

logger = logging.getLogger(__name__)

ACTIVE_STATUSES: Final = (IngestStatus.QUEUED, IngestStatus.RUNNING)
ERROR_MESSAGE_MAX_CHARS: Final = 500


@dataclass(frozen=True)
class StageSpec:
    """``items(job)`` lists stable item keys; ``run_item(job, key)`` does one item, in a
    transaction of its own unless ``own_transactions`` (the item opens its own, say to
    write on several connections at once; it must still be safe to rerun)."""

    items: Callable[[IngestJob], list[str]]
    run_item: Callable[[IngestJob, str], None]
    own_transactions: bool = False


def _registry() -> dict[str, StageSpec]:
    from verifier.services import ingest_stages

    return ingest_stages.STAGES


def next_stage(stage: str) -> str | None:
    index = STAGE_ORDER.index(stage)
    return STAGE_ORDER[index + 1] if index + 1 < len(STAGE_ORDER) else None


def _enqueue(job_id: int, stage: str) -> None:
    from verifier.pipeline.stages import STAGE_TASKS

    task = STAGE_TASKS[stage]
    transaction.on_commit(lambda: task.delay(job_id))


def _save_progress(job: IngestJob) -> None:
    """Only while this runner holds the lease: a runner presumed dead writes nothing."""
    IngestJob.objects.filter(pk=job.pk, runner=job.runner).update(
        progress=job.progress, errors=job.errors, heartbeat_at=timezone.now()
    )


def _stage_progress(job: IngestJob, stage: str) -> dict[str, Any]:
    entry = job.progress.setdefault(stage, {})
    entry.setdefault("done", 0)
    entry.setdefault("total", 0)
    entry.setdefault("failed", 0)
    entry.setdefault("completed", [])
    return entry


def _record_error(job: IngestJob, stage: str, key: str, exc: BaseException) -> None:
    message = f"{type(exc).__name__}: {exc}"[:ERROR_MESSAGE_MAX_CHARS]
    job.errors = [e for e in job.errors if not (e["stage"] == stage and e["item"] == key)]
    job.errors.append(
        {"stage": stage, "item": key, "error": message, "at": timezone.now().isoformat()}
    )


def _clear_error(job: IngestJob, stage: str, key: str) -> None:
    job.errors = [e for e in job.errors if not (e["stage"] == stage and e["item"] == key)]


def _still_ours(job: IngestJob) -> bool:
    """The job still runs and this runner still holds its lease."""
    return IngestJob.objects.filter(
        pk=job.pk, status=IngestStatus.RUNNING, runner=job.runner
    ).exists()


def _begin(job_id: int, stage: str) -> IngestJob | None:
    """The job, leased to this runner, when ``stage`` is the one it is at, it is still
    active and no live runner holds it; else None."""
    now = timezone.now()
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.status not in ACTIVE_STATUSES:
            return None
        if (job.stage or STAGE_ORDER[0]) != stage:
            return None
        if lease_is_live(job.runner, job.heartbeat_at):
            return None  # another worker runs this stage and is alive
        fields: dict[str, Any] = {"stage": stage, "runner": new_runner(), "heartbeat_at": now}
        if job.status == IngestStatus.QUEUED:
            fields.update(status=IngestStatus.RUNNING, started_at=now)
        IngestJob.objects.filter(pk=job.pk).update(**fields)
        for name, value in fields.items():
            setattr(job, name, value)
    return job


def _advance(job: IngestJob, stage: str) -> str | None:
    following = next_stage(stage)
    if following is None:
        return None
    with transaction.atomic():
        moved = IngestJob.objects.filter(
            pk=job.pk, status=IngestStatus.RUNNING, stage=stage, runner=job.runner
        ).update(stage=following, runner="", heartbeat_at=timezone.now(), stage_attempts=0)
        if moved:
            _enqueue(job.pk, following)
    return following if moved else None


def ingest_stage_run(*, job_id: int, stage: str) -> str | None:
    """Run the not-yet-completed items of ``stage``; enqueue the next stage on commit.

    Returns the next stage's name, or None when nothing more was enqueued (job
    cancelled, finished, at another stage, or this was the last stage).
    """
    job = _begin(job_id, stage)
    if job is None:
        return None
    try:
        with job_heartbeat(model=IngestJob, pk=job.pk, runner=job.runner):
            return _run_items(job, stage)
    finally:
        # Done, failed or raising: this runner lets go, so a redelivery (or a rerun of
        # a stage that left items failed) may start at once. Only a runner that dies
        # keeps the lease, until its heartbeat goes stale.
        IngestJob.objects.filter(pk=job.pk, runner=job.runner).update(runner="")


def _run_items(job: IngestJob, stage: str) -> str | None:
    job_id = job.pk
    spec = _registry()[stage]
    try:
        keys = spec.items(job)
    except Exception as exc:
        logger.exception("ingest job %s: listing %s items failed", job_id, stage)
        ingest_job_fail(job=job, stage=stage, exc=exc)
        return None
    entry = _stage_progress(job, stage)
    completed = set(entry["completed"])
    entry["total"] = len(keys)
    entry["done"] = sum(1 for k in keys if k in completed)
    _save_progress(job)
    for key in keys:
        if key in completed:
            continue
        if not _still_ours(job):
            return None  # cancelled, failed, or re-leased (this runner was presumed dead)
        try:
            # An item in the runner's transaction commits together with its "completed"
            # mark, so a worker killed in between leaves neither (no item counted twice).
            with nullcontext() if spec.own_transactions else transaction.atomic():
                spec.run_item(job, key)
                _clear_error(job, stage, key)
                completed.add(key)
                entry["completed"].append(key)
                entry["done"] += 1
                entry["failed"] = sum(1 for e in job.errors if e["stage"] == stage)
                _save_progress(job)
        except Exception as exc:  # one item's failure is recorded; the rest go on
            logger.warning("ingest job %s: %s item %s failed: %s", job_id, stage, key, exc)
            _record_error(job, stage, key, exc)
        entry["failed"] = sum(1 for e in job.errors if e["stage"] == stage)
        _save_progress(job)
    return _advance(job, stage)


def ingest_job_fail(*, job: IngestJob, stage: str, exc: BaseException) -> None:
    _record_error(job, stage, "*", exc)
    IngestJob.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
        status=IngestStatus.FAILED, errors=job.errors, finished_at=timezone.now()
    )


def ingest_job_cancel(*, job: IngestJob) -> bool:
    """Stop an active job between items; its unpublished claims stay invisible."""
    cancelled = IngestJob.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
        status=IngestStatus.CANCELLED, finished_at=timezone.now()
    )
    job.refresh_from_db()
    return bool(cancelled)


def ingest_job_rerun(*, job: IngestJob) -> IngestJob:
    """Run every stage again from extract. Items are idempotent, so no rows duplicate."""
    with transaction.atomic():
        for entry in job.progress.values():
            entry["completed"] = []
            entry["done"] = 0
        IngestJob.objects.filter(pk=job.pk).update(
            status=IngestStatus.QUEUED,
            stage=STAGE_ORDER[0],
            progress=job.progress,
            errors=[],
            finished_at=None,
            runner="",
            heartbeat_at=timezone.now(),
            stage_attempts=0,
        )
        _enqueue(job.pk, STAGE_ORDER[0])
    job.refresh_from_db()
    return job


def ingest_job_start(*, job: IngestJob) -> None:
    """Enqueue the first stage once the surrounding transaction commits."""
    _enqueue(job.pk, STAGE_ORDER[0])
