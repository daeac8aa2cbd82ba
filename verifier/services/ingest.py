"""Ingest jobs: create, cancel, rerun, and the stage runner every pipeline task calls.

Stages run in the published order (extract → relate → group → embed → validate →
remediate → store). A stage is a list of items with stable keys (a source version, a
range of claim ids), written once as ``IngestItem`` rows by whoever opens the stage.
The stage is enqueued as ``SPANPROOF_INGEST_SHARDS`` Celery tasks (shards), which may
run on as many worker processes on as many machines; each shard claims the next
pending item, runs it, marks it, and claims again until none is left:

- an item that runs in one transaction (relate, group, embed, validate, remediate)
  is claimed with ``SELECT ... FOR UPDATE SKIP LOCKED`` and keeps that row lock while
  it runs; its ``done`` mark commits in the same transaction. A worker killed mid-item
  rolls the whole item back and the item is pending again at once: each item takes
  effect exactly once by construction;
- an item that opens its own transactions (extract calls the extractor with none open,
  store publishes on several connections) is leased instead: ``running`` with the
  shard's token and a heartbeat. A shard (or the watchdog's re-enqueued shards) takes
  over a lease silent for ``SPANPROOF_JOB_STALE_SECONDS``; these items are idempotent,
  so a repeat adds no rows. An item taken over ``SPANPROOF_JOB_MAX_ATTEMPTS`` times
  fails with the reason.

A failure is recorded on its item and in ``job.errors`` and never loses the rest. The
shard that finds every item done or failed advances the job to the next stage exactly
once (under the job's row lock, while the job is still at the stage: decided by the
items, whoever holds the lease) and enqueues it on commit. After the last
stage the shard that finds its every item done finishes the job (the stage's
``finish``, under the job's row lock), so a job is never seen finished while one of its
items is still open; a failed item of the last stage keeps the job running, and a new
delivery runs it again.
``job.progress[stage]`` ({done, total, failed, completed}) is recounted from the items
under the job's row lock at each mark, so it stays right with any number of shards.

Stages whose batches read what earlier batches wrote run one item at a time in key
order (``serial``; relate: claim relations and entity weights of earlier claims; group:
a claim is a near-duplicate of an EARLIER claim, whose vector and cluster root must be
committed): a transaction-scoped advisory lock on the job admits one item at a time.
A shard that finds the lock taken runs the stage's ``prepare`` step on a later pending
item instead (group: embedding the batch, which is order-free and idempotent), or exits.

Liveness: the shards of a stage share the job's lease token (``job.runner``, set by
the first shard to open the stage) and beat ``job.heartbeat_at`` and their item leases
from a background thread (``services.job_heartbeat``). ``services.ingest_watch``
re-enqueues a stage whose heartbeat went silent (every shard gone); it resets the
token, so a shard presumed dead stops between items. Such a shard may still have been
running an item, which the re-sent shards found held and left: it moves the job on when
that item was the stage's last, and sends the stage again when items are still pending
(a serial stage's re-sent shard leaves while the turn is held), so the job never waits
a stale period for the next watchdog round.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import User
from django.db import DatabaseError, InterfaceError, connection, transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from verifier.models import Claim, IngestItem, IngestItemStatus, IngestJob, IngestStatus
from verifier.models.ingest import STAGE_ORDER
from verifier.selectors.ingest import CANCEL_EXCLUSION
from verifier.selectors.worker_beats import stale_after
from verifier.services import ingest_stages
from verifier.services.claim_state import claims_state_refresh
from verifier.services.enqueue import (
    EXCLUDE_CANCELLED_CLAIMS,
    ingest_stage_task_name,
    task_enqueue_on_commit,
)
from verifier.services.ingest_stage_spec import StageSpec
from verifier.services.job_heartbeat import job_heartbeat, lease_is_live, new_runner
from verifier.states import CAUSE_EXCLUDED, ClaimState, StateReason

logger = logging.getLogger(__name__)

ACTIVE_STATUSES: Final = (IngestStatus.QUEUED, IngestStatus.RUNNING)
ERROR_MESSAGE_MAX_CHARS: Final = 500
# The advisory lock (class, job id) that admits one item of a serial stage at a time.
SERIAL_LOCK_CLASS: Final = 0x5350
OPEN_STATUSES: Final = (IngestItemStatus.PENDING, IngestItemStatus.RUNNING)
# Claims excluded per transaction when a cancelled job's unjudged claims are excluded.
CANCEL_EXCLUDE_BATCH: Final = 1000


class WorkerSilent(Exception):
    """The reason recorded on an item or job given up after too many silent workers."""


def _registry() -> dict[str, StageSpec]:
    return ingest_stages.STAGES


def next_stage(stage: str) -> str | None:
    index = STAGE_ORDER.index(stage)
    return STAGE_ORDER[index + 1] if index + 1 < len(STAGE_ORDER) else None


def stage_shards(stage: str) -> int:
    """How many tasks a stage is enqueued as: one for a serial stage with nothing to
    prepare ahead, else ``SPANPROOF_INGEST_SHARDS``."""
    spec = _registry()[stage]
    if spec.serial and spec.prepare is None:
        return 1
    return max(1, int(settings.SPANPROOF_INGEST_SHARDS))


def _enqueue(job_id: int, stage: str) -> None:
    """Send the stage's shards once the surrounding transaction commits (one on-commit
    callback, however many shards)."""
    task_enqueue_on_commit(ingest_stage_task_name(stage), job_id, copies=stage_shards(stage))


def worker_name() -> str:
    """``host:pid`` of this process (a prefork child has its own pid)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _error_entry(stage: str, key: str, message: str) -> dict[str, Any]:
    return {"stage": stage, "item": key, "error": message, "at": timezone.now().isoformat()}


def _error_message(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:ERROR_MESSAGE_MAX_CHARS]


def _record_error(job: IngestJob, stage: str, key: str, exc: BaseException) -> None:
    job.errors = [e for e in job.errors if not (e["stage"] == stage and e["item"] == key)]
    job.errors.append(_error_entry(stage, key, _error_message(exc)))


def _write_progress(job_id: int, stage: str, *, key: str | None = None, error: str = "") -> None:
    """Recount ``progress[stage]`` from the items, and clear (or, with ``error``, set)
    item ``key``'s entry in ``errors``, under the job's row lock: concurrent shards
    serialize here, each after its own mark, so the last one counts every mark. Call
    inside a transaction."""
    locked = IngestJob.objects.select_for_update().only("progress", "errors").get(pk=job_id)
    rows = list(
        IngestItem.objects.filter(job_id=job_id, stage=stage)
        .order_by("position")
        .values_list("key", "status")
    )
    completed = [k for k, status in rows if status == IngestItemStatus.DONE]
    progress = locked.progress or {}
    progress[stage] = {
        "done": len(completed),
        "total": len(rows),
        "failed": sum(1 for _, status in rows if status == IngestItemStatus.FAILED),
        "completed": completed,
    }
    errors = locked.errors or []
    if key is not None:
        errors = [e for e in errors if not (e["stage"] == stage and e["item"] == key)]
        if error:
            errors.append(_error_entry(stage, key, error))
    IngestJob.objects.filter(pk=job_id).update(progress=progress, errors=errors)


def _still_ours(job: IngestJob) -> bool:
    """The job still runs and the shards of this runner's lease still hold it."""
    return IngestJob.objects.filter(
        pk=job.pk, status=IngestStatus.RUNNING, runner=job.runner
    ).exists()


def _begin(job_id: int, stage: str) -> IngestJob | None:
    """The job, when ``stage`` is the one it is at and it is still active; this shard
    joins the live lease of the stage's other shards, or takes a fresh one."""
    now = timezone.now()
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.status not in ACTIVE_STATUSES:
            return None
        if (job.stage or STAGE_ORDER[0]) != stage:
            return None
        fields: dict[str, Any] = {}
        if not lease_is_live(job.runner, job.heartbeat_at):
            fields.update(stage=stage, runner=new_runner(), heartbeat_at=now)
        if job.status == IngestStatus.QUEUED:
            fields.update(status=IngestStatus.RUNNING, started_at=now)
        if fields:
            IngestJob.objects.filter(pk=job.pk).update(**fields)
            for name, value in fields.items():
                setattr(job, name, value)
    return job


def _list_items(job: IngestJob, stage: str) -> None:
    """Write the stage's item rows, once: the first shard to open the stage lists them
    (under the job's row lock, so two openers never list twice)."""
    with transaction.atomic():
        IngestJob.objects.select_for_update().filter(pk=job.pk).first()
        if IngestItem.objects.filter(job_id=job.pk, stage=stage).exists():
            return
        keys = _registry()[stage].items(job)
        IngestItem.objects.bulk_create(
            [
                IngestItem(job_id=job.pk, stage=stage, key=key, position=i)
                for i, key in enumerate(keys)
            ],
            ignore_conflicts=True,
        )
        _write_progress(job.pk, stage)


def _advance(job: IngestJob, stage: str, *, hand_over: bool = False) -> str | None:
    """Move the job past ``stage`` — exactly once, whichever shard gets here first —
    and enqueue the next stage on commit; past the last one, finish the job.

    Decided under the job's row lock by the items, not by whose lease the job is: the
    job must still run at ``stage`` and no item of it be open (pending or running).
    A shard whose lease was reset while it ran an item (the watchdog re-sent the stage,
    and the re-sent shards left, that item held) thus still moves the job on when it
    finishes the stage's last item. ``hand_over``: this shard stops between items
    because the lease is no longer its own; when items it may have kept the re-sent
    shards from (a serial stage's turn) are still pending, it sends the stage again on
    commit, and those shards join the current lease."""
    following = next_stage(stage)
    with transaction.atomic():
        locked = (
            IngestJob.objects.select_for_update()
            .filter(pk=job.pk, status=IngestStatus.RUNNING, stage=stage)
            .first()
        )
        if locked is None:
            return None  # cancelled, failed, finished, or another shard moved it on
        items = IngestItem.objects.filter(job_id=job.pk, stage=stage)
        if items.filter(status__in=OPEN_STATUSES).exists():
            # another shard still runs one (or a dead one's lease waits to expire)
            if hand_over and items.filter(status=IngestItemStatus.PENDING).exists():
                _enqueue(job.pk, stage)
                logger.info(
                    "ingest job %s: a shard whose lease was taken over handed the %s "
                    "items left to new shards",
                    job.pk,
                    stage,
                )
            return None
        if following is None:
            _finish(locked, stage)
            return None
        IngestJob.objects.filter(pk=job.pk).update(
            stage=following, runner="", heartbeat_at=timezone.now(), stage_attempts=0
        )
        _enqueue(job.pk, following)
    return following


def _finish(job: IngestJob, stage: str) -> None:
    """Close the job after its last stage, when that stage's items are all done. Call
    in the transaction that holds the job's row lock (``_advance``), so two shards never
    both finish it and none while an item is open. A failed item leaves the job running
    for a new delivery to retry."""
    finish = _registry()[stage].finish
    items = IngestItem.objects.filter(job_id=job.pk, stage=stage)
    if items.exclude(status=IngestItemStatus.DONE).exists():
        return
    if finish is not None:
        finish(job)


# Leases a shard of this process could not hand back (the database was gone): the next
# shard this process runs hands them back first, so a task retried after a database
# restart takes its items at once instead of waiting for their leases to go stale.
_UNRELEASED: set[tuple[int, str, str]] = set()
_UNRELEASED_LOCK = threading.Lock()


def _release_leases(job_id: int, stage: str, shard: str) -> None:
    IngestItem.objects.filter(
        job_id=job_id, stage=stage, runner=shard, status=IngestItemStatus.RUNNING
    ).update(status=IngestItemStatus.PENDING, runner="")


def _release(job: IngestJob, stage: str, shard: str) -> None:
    """The leases this shard still holds go back to pending (it stops, by an exception
    or a retry, without dying): another shard may take them at once."""
    try:
        _release_leases(job.pk, stage, shard)
    except (DatabaseError, InterfaceError) as exc:  # the database is gone: try again later
        connection.close()
        with _UNRELEASED_LOCK:
            _UNRELEASED.add((job.pk, stage, shard))
        logger.warning(
            "ingest job %s: could not release the %s items this shard held (%s); the "
            "next shard here releases them",
            job.pk,
            stage,
            _error_message(exc),
        )
    except Exception:
        logger.exception("ingest job %s: releasing the %s items of a shard failed", job.pk, stage)


def _release_left_over() -> None:
    """Hand back the leases an earlier shard of this process could not (``_release``)."""
    with _UNRELEASED_LOCK:
        left = sorted(_UNRELEASED)
        _UNRELEASED.clear()
    for index, (job_id, stage, shard) in enumerate(left):
        try:
            _release_leases(job_id, stage, shard)
        except Exception:
            with _UNRELEASED_LOCK:
                _UNRELEASED.update(left[index:])
            raise
        logger.info("ingest job %s: released the %s items of shard %s", job_id, stage, shard)


def ingest_stage_run(*, job_id: int, stage: str) -> str | None:
    """One shard of ``stage``: run items until none is left to claim; the shard that
    finishes the stage enqueues the next on commit.

    Returns the next stage's name when this shard advanced the job, else None (job
    cancelled, finished, at another stage, items still running elsewhere, or this was
    the last stage).
    """
    _release_left_over()
    job = _begin(job_id, stage)
    if job is None:
        return None
    shard = new_runner()

    def beat_items() -> None:
        IngestItem.objects.filter(
            job_id=job_id, runner=shard, status=IngestItemStatus.RUNNING
        ).update(heartbeat_at=timezone.now())

    try:
        with job_heartbeat(model=IngestJob, pk=job.pk, runner=job.runner, also=beat_items):
            return _run_items(job, stage, shard=shard)
    finally:
        if _registry()[stage].own_transactions:  # only these stages lease their items
            _release(job, stage, shard)


def _run_items(job: IngestJob, stage: str, *, shard: str | None = None) -> str | None:
    shard = shard or new_runner()
    if not _still_ours(job):
        return None  # cancelled, failed, or re-leased (this runner was presumed dead)
    spec = _registry()[stage]
    try:
        _list_items(job, stage)
    except Exception as exc:
        logger.exception("ingest job %s: listing %s items failed", job.pk, stage)
        ingest_job_fail(job=job, stage=stage, exc=exc)
        return None
    _retry_failed_if_stuck(job, stage)
    ran_any = False
    while True:
        if not _still_ours(job):
            # Re-leased (presumed dead), or no longer running: claim nothing more. The
            # item just finished may have been the stage's last, or have held up the
            # re-sent shards: move the job on, or hand the items left over.
            return _advance(job, stage, hand_over=ran_any)
        if spec.own_transactions:
            ran = _run_leased_item(job, stage, spec, shard)
        elif spec.serial:
            ran = _run_serial_item(job, stage, spec)
        else:
            ran = _run_locked_item(job, stage, spec)
        if not ran:
            break
        ran_any = True
    return _advance(job, stage)


def _retry_failed_if_stuck(job: IngestJob, stage: str) -> None:
    """A stage whose items are all finished and which is still the job's current stage
    could not advance (the store stage, whose failure keeps the job running): a new
    delivery runs its failed items again."""
    with transaction.atomic():
        locked = (
            IngestJob.objects.select_for_update()
            .filter(pk=job.pk, status=IngestStatus.RUNNING, stage=stage)
            .first()
        )
        if locked is None:
            return  # moved on meanwhile: a finished stage never runs again
        items = IngestItem.objects.filter(job_id=job.pk, stage=stage)
        if items.filter(status__in=OPEN_STATUSES).exists():
            return
        items.filter(status=IngestItemStatus.FAILED).update(
            status=IngestItemStatus.PENDING, runner=""
        )


def _mark(job: IngestJob, item: IngestItem, *, error: str = "") -> None:
    """Inside the item's transaction (or one of its own): done, or failed with
    ``error``; the job's progress and errors follow."""
    IngestItem.objects.filter(pk=item.pk).update(
        status=IngestItemStatus.FAILED if error else IngestItemStatus.DONE,
        runner="",
        error=error,
        done_by=worker_name(),
        finished_at=timezone.now(),
    )
    _write_progress(job.pk, item.stage, key=item.key, error=error)


def _run_claimed(job: IngestJob, item: IngestItem, spec: StageSpec) -> None:
    """Run a claimed item in a savepoint of the claim's transaction: a failure rolls the
    item's writes back but keeps its row lock, so it is marked failed, once."""
    try:
        with transaction.atomic():
            spec.run_item(job, item.key)
    except Exception as exc:  # one item's failure is recorded; the rest go on
        try:
            _mark(job, item, error=_error_message(exc))
        except (DatabaseError, InterfaceError):
            # The database went away under the item (a restart): nothing of it, not even
            # the failure, was written; it is pending again and the task retries.
            logger.warning(
                "ingest job %s: %s item %s interrupted, the database connection was lost "
                "(%s); it runs again",
                job.pk,
                item.stage,
                item.key,
                _error_message(exc),
            )
            raise
        logger.warning("ingest job %s: %s item %s failed: %s", job.pk, item.stage, item.key, exc)
    else:
        _mark(job, item)


def _pending(job: IngestJob, stage: str) -> QuerySet[IngestItem]:
    return IngestItem.objects.filter(
        job_id=job.pk, stage=stage, status=IngestItemStatus.PENDING
    ).order_by("position")


def _run_locked_item(job: IngestJob, stage: str, spec: StageSpec) -> bool:
    """Claim the next pending item no other shard holds and run it in this one
    transaction; False when none is left."""
    with transaction.atomic():
        item = _pending(job, stage).select_for_update(skip_locked=True).first()
        if item is None:
            return False
        _run_claimed(job, item, spec)
    return True


def _serial_lock(job: IngestJob) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [SERIAL_LOCK_CLASS, job.pk])
        return bool(cursor.fetchone()[0])


def _run_serial_item(job: IngestJob, stage: str, spec: StageSpec) -> bool:
    """The lowest pending item, while no other shard runs one of this stage (waiting
    for a shard that is preparing it); else prepare a later one. False when this shard
    has nothing to do."""
    with transaction.atomic():
        if _serial_lock(job):
            # No SKIP LOCKED: an item being prepared is waited for, never overtaken.
            item = _pending(job, stage).select_for_update().first()
            if item is None:
                return False
            _run_claimed(job, item, spec)
            return True
    return spec.prepare is not None and _prepare_next(job, stage, spec)


def _prepare_next(job: IngestJob, stage: str, spec: StageSpec) -> bool:
    assert spec.prepare is not None
    with transaction.atomic():
        item = (
            _pending(job, stage)
            .filter(prepared_at__isnull=True)
            .select_for_update(skip_locked=True)
            .first()
        )
        if item is None:
            return False
        try:
            with transaction.atomic():
                spec.prepare(job, item.key)
        except Exception as exc:  # the item itself redoes it, and reports
            logger.warning("ingest job %s: preparing %s failed: %s", job.pk, item.key, exc)
        IngestItem.objects.filter(pk=item.pk).update(prepared_at=timezone.now())
    return True


def _run_leased_item(job: IngestJob, stage: str, spec: StageSpec, shard: str) -> bool:
    """Lease the next pending item (or one whose lease went silent), run it with no
    transaction open, and mark it while the lease is still this shard's."""
    now = timezone.now()
    with transaction.atomic():
        item = (
            IngestItem.objects.filter(job_id=job.pk, stage=stage)
            .filter(
                Q(status=IngestItemStatus.PENDING)
                | Q(status=IngestItemStatus.RUNNING, heartbeat_at__lt=now - stale_after())
            )
            .order_by("position")
            .select_for_update(skip_locked=True)
            .first()
        )
        if item is None:
            return False
        if (
            item.status == IngestItemStatus.RUNNING
            and item.attempts >= settings.SPANPROOF_JOB_MAX_ATTEMPTS
        ):
            reason = WorkerSilent(
                f"the worker running item {item.key} went silent {item.attempts} times "
                f"(no heartbeat for {settings.SPANPROOF_JOB_STALE_SECONDS} s); gave up"
            )
            _mark(job, item, error=_error_message(reason))
            return True
        IngestItem.objects.filter(pk=item.pk).update(
            status=IngestItemStatus.RUNNING,
            runner=shard,
            heartbeat_at=now,
            attempts=F("attempts") + 1,
            done_by=worker_name(),  # the holder, until the worker that finishes it
        )
    error = ""
    try:
        spec.run_item(job, item.key)
    except Exception as exc:  # one item's failure is recorded; the rest go on
        error = _error_message(exc)
    try:
        with transaction.atomic():
            held = (
                IngestItem.objects.select_for_update()
                .filter(pk=item.pk, runner=shard, status=IngestItemStatus.RUNNING)
                .exists()
            )
            if held:  # a lease taken over meanwhile: the other shard marks it
                _mark(job, item, error=error)
    except (DatabaseError, InterfaceError):
        # The database went away under the item (a restart): its outcome is not written;
        # the lease goes back (``_release``) and the retried task runs it again.
        logger.warning(
            "ingest job %s: %s item %s interrupted, the database connection was lost "
            "(%s); it runs again",
            job.pk,
            stage,
            item.key,
            error or "while marking it",
        )
        raise
    if error:
        logger.warning("ingest job %s: %s item %s failed: %s", job.pk, stage, item.key, error)
    return True


def ingest_job_fail(*, job: IngestJob, stage: str, exc: BaseException) -> None:
    with transaction.atomic():
        locked = IngestJob.objects.select_for_update().filter(pk=job.pk).first()
        if locked is None:
            return
        _record_error(locked, stage, "*", exc)
        job.errors = locked.errors
        IngestJob.objects.filter(pk=job.pk, status__in=ACTIVE_STATUSES).update(
            status=IngestStatus.FAILED, errors=locked.errors, finished_at=timezone.now()
        )


def ingest_job_cancel(*, job: IngestJob, actor: User | None = None) -> bool:
    """Stop an active job between items; its unpublished claims stay invisible. Its
    items still pending or leased are marked cancelled; one a worker is running in its
    own transaction (row-locked, skipped here) ends as that worker marks it.

    The job's claims that no judge has read yet (``not_judged``: extracted or imported,
    the job stopped before validating them) are then excluded, with the reason and a
    state event, rather than left waiting in the review queue for a verdict nothing
    will give. A big job has thousands of them, so that is done in the background
    (``ingest_job_cancelled_claims_exclude``, enqueued once this commits): the cancel
    itself is one short transaction. ``progress[CANCEL_EXCLUSION]`` says how far the
    exclusion went; the watchdog sends it again when its worker went silent. Claims
    the job already judged keep their verdicts and states. Returns whether this call
    cancelled the job."""
    now = timezone.now()
    with transaction.atomic():
        locked = (
            IngestJob.objects.select_for_update()
            .filter(pk=job.pk, status__in=ACTIVE_STATUSES)
            .only("progress")
            .first()
        )
        if locked is not None:
            progress = locked.progress or {}
            progress[CANCEL_EXCLUSION] = {
                "excluded": 0,
                "completed": False,
                "actor_id": actor.pk if actor is not None else None,
                "beat_at": now.isoformat(),
            }
            IngestJob.objects.filter(pk=job.pk).update(
                status=IngestStatus.CANCELLED, finished_at=now, progress=progress
            )
            open_items = list(
                IngestItem.objects.select_for_update(skip_locked=True)
                .filter(job_id=job.pk, status__in=OPEN_STATUSES)
                .values_list("pk", flat=True)
            )
            IngestItem.objects.filter(pk__in=open_items, status__in=OPEN_STATUSES).update(
                status=IngestItemStatus.CANCELLED, runner="", finished_at=now
            )
            ingest_job_cancelled_claims_exclude_enqueue(job_id=job.pk)
    job.refresh_from_db()
    return locked is not None


def ingest_job_cancelled_claims_exclude_enqueue(*, job_id: int) -> None:
    """Send the exclusion of a cancelled job's claims once the surrounding transaction
    commits (the cancel's, or the watchdog's)."""
    task_enqueue_on_commit(EXCLUDE_CANCELLED_CLAIMS, job_id)


def cancelled_exclusion_reason(job_id: int) -> str:
    return f"ingest job #{job_id} was cancelled before this claim was judged"


def _cancel_exclusion_mark(job_id: int, *, added: int, completed: bool) -> None:
    """Count ``added`` claims into ``progress[CANCEL_EXCLUSION]`` and beat it, under the
    job's row lock (a stage item still finishing rewrites ``progress`` under it too)."""
    locked = IngestJob.objects.select_for_update().only("progress").get(pk=job_id)
    progress = locked.progress or {}
    entry = dict(progress.get(CANCEL_EXCLUSION) or {})
    entry["excluded"] = int(entry.get("excluded", 0)) + added
    entry["completed"] = completed
    entry["beat_at"] = timezone.now().isoformat()
    progress[CANCEL_EXCLUSION] = entry
    IngestJob.objects.filter(pk=job_id).update(progress=progress)


def ingest_job_cancelled_claims_exclude(*, job_id: int) -> int:
    """Exclude the cancelled job's claims that were never judged (``not_judged``), batch
    by batch (``CANCEL_EXCLUDE_BATCH``), each claim with the reason and a state event
    naming who cancelled (reversible: a reviewer may restore one, and it is then
    unverified, not judged, in the queue). Returns how many this run excluded.

    Safe to rerun: each batch commits its claims and its count in
    ``progress[CANCEL_EXCLUSION]`` together, so a run killed mid-way leaves the rest
    for the next one (the watchdog's, ``ingest_cancel_exclusions_watch``), and a run
    after the last batch finds nothing. A job not cancelled, or whose exclusion is
    complete, is left alone. Extraction creates no claim for a job once it is
    cancelled (``services.ingest_extract``), so none appears after this."""
    job = IngestJob.objects.filter(pk=job_id, status=IngestStatus.CANCELLED).first()
    entry = ((job.progress or {}).get(CANCEL_EXCLUSION) if job is not None else None) or {}
    if not entry or entry.get("completed"):
        return 0
    actor = User.objects.filter(pk=entry["actor_id"]).first() if entry.get("actor_id") else None
    reason = cancelled_exclusion_reason(job_id)
    total = 0
    after = 0
    while True:
        # Claims first, then the job's row (``_cancel_exclusion_mark``): the order a
        # validation item still running takes them, so neither waits on the other.
        with transaction.atomic():
            # FOR UPDATE re-reads a row a validation item held: one it judged meanwhile
            # no longer matches and is left as judged.
            ids = list(
                Claim.objects.select_for_update()
                .filter(
                    ingest_job_id=job_id,
                    pk__gt=after,
                    published=False,
                    exclusion_reason="",
                    state=ClaimState.UNVERIFIED.value,
                    state_reason=StateReason.NOT_JUDGED.value,
                )
                .order_by("pk")
                .values_list("pk", flat=True)[:CANCEL_EXCLUDE_BATCH]
            )
            if ids:
                Claim.objects.filter(pk__in=ids).update(exclusion_reason=reason)
                claims = list(Claim.objects.filter(pk__in=ids).defer("embedding"))
                claims_state_refresh(
                    claims=claims,
                    causes={pk: f"{CAUSE_EXCLUDED} {reason}"[:200] for pk in ids},
                    actor=actor,
                )
            completed = len(ids) < CANCEL_EXCLUDE_BATCH
            _cancel_exclusion_mark(job_id, added=len(ids), completed=completed)
        total += len(ids)
        if completed:
            if total:
                logger.info("ingest job %s cancelled: %s claims not judged excluded", job_id, total)
            return total
        after = ids[-1]


def ingest_job_start(*, job: IngestJob) -> None:
    """Enqueue the first stage once the surrounding transaction commits."""
    _enqueue(job.pk, STAGE_ORDER[0])
