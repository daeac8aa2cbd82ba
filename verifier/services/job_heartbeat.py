"""A worker's heartbeat on the job row it holds (ingest and verification jobs).

While a worker runs a job (or one stage of it) it holds a lease: the job row's
``runner`` is a token of its own, and a background thread refreshes the row's
``heartbeat_at`` every fifth of ``SPANPROOF_JOB_STALE_SECONDS`` (``BEATS_PER_STALE_PERIOD``,
with ``stale_after`` in ``selectors.worker_beats``, which the job pages read too), on a
connection of its own, so even one long item (a remote model taking minutes) keeps the job alive. A
worker that dies stops beating; the watchdogs (``services.ingest_watch``) see the
silence.

A token names the process that took it (``<pid>.<host tag>.<random>``), so a worker
restarted on the same host can tell the leases of its dead predecessor at once
(:func:`runner_died_here`, ``services.job_reclaim``) instead of waiting for their
heartbeat to go stale.
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any, TypeVar

from django.db import connection, models, transaction
from django.utils import timezone

from verifier.selectors.worker_beats import BEATS_PER_STALE_PERIOD, stale_after

logger = logging.getLogger(__name__)

LeasedJobT = TypeVar("LeasedJobT", bound=models.Model)
# A leased job's status while a worker holds it (every job model's ``RUNNING``).
RUNNING = "running"


def _host_tag() -> str:
    """A short tag of this host's name (a token must fit 64 characters)."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:12]


def new_runner() -> str:
    """A fresh lease token of this process: ``<pid>.<host tag>.<random hex>``."""
    return f"{os.getpid()}.{_host_tag()}.{uuid.uuid4().hex}"


def runner_died_here(runner: str) -> bool:
    """Whether lease ``runner`` was taken by a process of this host that no longer
    exists (a worker killed outright). False for a token of another host, of a live
    process, of this very process, or of any other form: only a certainly dead holder
    counts, so a live lease is never taken from its worker."""
    parts = runner.split(".")
    if len(parts) != 3 or not parts[0].isdigit() or parts[1] != _host_tag():
        return False
    pid = int(parts[0])
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)  # signal 0: does the process exist?
    except ProcessLookupError:
        return True
    except OSError:  # it exists (owned by another user)
        return False
    return False


def lease_is_live(runner: str, heartbeat_at: datetime | None) -> bool:
    """Whether another worker holds the job and was heard from recently."""
    return (
        bool(runner) and heartbeat_at is not None and heartbeat_at > timezone.now() - stale_after()
    )


def leased_job_take(
    queryset: models.QuerySet[LeasedJobT],
    job_id: int,
    *,
    start_over: bool = False,
    also: Callable[[Any], dict[str, object]] | None = None,
) -> tuple[LeasedJobT, bool]:
    """A worker's first step on a leased job (``models.jobs.LeasedJob``), in one
    transaction under the job row's lock: ``(job, True)`` once this process holds its
    lease — running, a new runner token, its heartbeat now, ``started_at`` kept from an
    interrupted run (set anew with ``start_over``: a job that starts from the beginning);
    ``also(job)`` gives more fields to set with it — or ``(job, False)``, untouched, when
    the job has finished or a live worker holds it (a redelivered message)."""
    with transaction.atomic():
        job: Any = queryset.select_for_update(of=("self",)).get(pk=job_id)
        if job.finished or lease_is_live(job.runner, job.heartbeat_at):
            return job, False
        now = timezone.now()
        fields = {
            "status": RUNNING,
            "started_at": now if start_over or job.started_at is None else job.started_at,
            "runner": new_runner(),
            "heartbeat_at": now,
            **(also(job) if also is not None else {}),
        }
        for name, value in fields.items():
            setattr(job, name, value)
        job.save(update_fields=list(fields))
    return job, True


@contextmanager
def job_heartbeat(
    *,
    model: type[models.Model],
    pk: int,
    runner: str,
    also: Callable[[], object] | None = None,
    interval: float | None = None,
) -> Iterator[None]:
    """Beat ``model`` row ``pk`` while its ``runner`` is ours; ``also`` is called on each
    beat too, on the same connection (an ingest shard refreshes its item leases, an
    audit-pack export its progress). ``interval``: seconds between beats, when more
    often than the default fifth of ``SPANPROOF_JOB_STALE_SECONDS``."""
    stop = threading.Event()
    default = max(stale_after().total_seconds() / BEATS_PER_STALE_PERIOD, 0.2)
    interval = min(interval, default) if interval is not None else default

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    model._default_manager.filter(pk=pk, runner=runner).update(
                        heartbeat_at=timezone.now()
                    )
                    if also is not None:
                        also()
                except Exception:
                    # One failed beat (the database restarting, a dropped connection) is
                    # not a dead worker: the next beat tries again on a fresh connection.
                    # Only a silence longer than the stale period is, which the
                    # watchdog sees (and counts against the job).
                    logger.warning(
                        "%s %s: a heartbeat failed; trying again at the next beat",
                        model.__name__,
                        pk,
                        exc_info=True,
                    )
                    connection.close()
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
