"""A Celery worker's sign of life: from ``worker_ready`` until the process ends it records
a beat every ``WORKER_BEAT_SECONDS`` (``WorkerBeat``, in the database every web process
reads), from a daemon thread of the worker's main process; a clean shutdown forgets it.
A worker killed outright stops beating, and after ``WORKER_STALE_SECONDS`` the jobs it
left show "waiting for a worker since ..." (``verifier.selectors.worker_beats``)."""

from __future__ import annotations

import logging
import threading

from django.db import connection

from verifier.selectors.worker_beats import WORKER_BEAT_SECONDS
from verifier.services.worker_beats import worker_beat_forget, worker_beat_record

logger = logging.getLogger(__name__)

_stop = threading.Event()


def _beat_once(hostname: str) -> None:
    try:
        worker_beat_record(hostname=hostname)
    except Exception as exc:  # the database may be down a while: try again next beat
        logger.warning("worker %s could not record its beat: %s", hostname, type(exc).__name__)
        connection.close()


def _beat_forever(hostname: str) -> None:
    while not _stop.wait(WORKER_BEAT_SECONDS):
        _beat_once(hostname)
    connection.close()


def start_beating(*, hostname: str) -> threading.Thread:
    _stop.clear()
    _beat_once(hostname)
    thread = threading.Thread(
        target=_beat_forever, args=(hostname,), name="worker-liveness", daemon=True
    )
    thread.start()
    return thread


def stop_beating(*, hostname: str) -> None:
    _stop.set()
    try:
        worker_beat_forget(hostname=hostname)
    except Exception as exc:
        logger.warning("worker %s could not forget its beat: %s", hostname, type(exc).__name__)
