"""A Celery worker's sign of life: from ``worker_ready`` until the process ends it records
a beat every ``WORKER_BEAT_SECONDS`` (``WorkerBeat``, in the database every web process
reads), from a daemon thread of the worker's main process; a clean shutdown forgets it.
A worker killed outright stops beating, and after ``WORKER_STALE_SECONDS`` the jobs it
left show "waiting for a worker since ..." (``verifier.selectors.worker_beats``).

The database may restart under a running worker (``make run`` starts the embedded
PostgreSQL again when it stops): the connection a thread held is then dead, and the
first query on it fails although the server is back. Each write is therefore tried
once more on a fresh connection before it counts as failed; while the database stays
unreachable the beat thread logs one warning when it starts failing and one line when
it records again, not a warning every beat.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.db import connection

from verifier.selectors.worker_beats import WORKER_BEAT_SECONDS
from verifier.services.worker_beats import worker_beat_forget, worker_beat_record

logger = logging.getLogger(__name__)

_stop = threading.Event()
_failing = threading.Event()  # the last beat could not be recorded


def _with_fresh_retry(write: Callable[[], None]) -> None:
    """``write``; on a failure, once more on a new connection (the old one may be dead
    after a database restart). Raises the second failure."""
    try:
        write()
    except Exception:
        connection.close()
        write()


def _describe(exc: BaseException) -> str:
    first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__


def _beat_once(hostname: str) -> None:
    try:
        _with_fresh_retry(lambda: worker_beat_record(hostname=hostname))
    except Exception as exc:  # the database may be down a while: try again next beat
        connection.close()
        if not _failing.is_set():
            _failing.set()
            logger.warning(
                "worker %s could not record its beat (%s); retrying every %s s",
                hostname,
                _describe(exc),
                WORKER_BEAT_SECONDS,
            )
        return
    if _failing.is_set():
        _failing.clear()
        logger.warning("worker %s records its beat again", hostname)


def _beat_forever(hostname: str) -> None:
    while not _stop.wait(WORKER_BEAT_SECONDS):
        _beat_once(hostname)
    connection.close()


def start_beating(*, hostname: str) -> threading.Thread:
    _stop.clear()
    _failing.clear()
    _beat_once(hostname)
    thread = threading.Thread(
        target=_beat_forever, args=(hostname,), name="worker-liveness", daemon=True
    )
    thread.start()
    return thread


def stop_beating(*, hostname: str) -> None:
    _stop.set()
    try:
        _with_fresh_retry(lambda: worker_beat_forget(hostname=hostname))
    except Exception as exc:
        logger.warning(
            "worker %s stopped without forgetting its beat (%s); it counts as gone once "
            "the beat is stale",
            hostname,
            _describe(exc),
        )
