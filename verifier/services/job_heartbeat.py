"""A worker's heartbeat on the job row it holds (ingest and verification jobs).

While a worker runs a job (or one stage of it) it holds a lease: the job row's
``runner`` is a token of its own, and a background thread refreshes the row's
``heartbeat_at`` every fifth of ``SPANPROOF_JOB_STALE_SECONDS``, on a connection of its
own, so even one long item (a remote model taking minutes) keeps the job alive. A
worker that dies stops beating; the watchdogs (``services.ingest_watch``) see the
silence.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, models
from django.utils import timezone

logger = logging.getLogger(__name__)


def stale_after() -> timedelta:
    """How long a job may go without a heartbeat before its worker counts as gone."""
    return timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS)


def new_runner() -> str:
    return uuid.uuid4().hex


def lease_is_live(runner: str, heartbeat_at: datetime | None) -> bool:
    """Whether another worker holds the job and was heard from recently."""
    return (
        bool(runner) and heartbeat_at is not None and heartbeat_at > timezone.now() - stale_after()
    )


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
    default = max(settings.SPANPROOF_JOB_STALE_SECONDS / 5, 0.2)
    interval = min(interval, default) if interval is not None else default

    def beat() -> None:
        try:
            while not stop.wait(interval):
                model._default_manager.filter(pk=pk, runner=runner).update(
                    heartbeat_at=timezone.now()
                )
                if also is not None:
                    also()
        except Exception:  # a beat that fails is a silence the watchdog will see
            logger.exception("%s %s: heartbeat failed", model.__name__, pk)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
