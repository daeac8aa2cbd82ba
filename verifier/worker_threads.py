"""How many threads one Celery task's model work may use (torch's intra-op pool).

torch sizes its pool to every CPU of the machine in each process. A Celery worker whose
pool runs several tasks at once (``--concurrency``), or several worker processes on one
machine, then ask for more threads than there are cores whenever their items embed or
judge at the same time, and each waits on the others' spinning threads: one ingest job
on two worker processes of a 2-core machine took 26.0 s against 14.6 s on one
(``bench/ingest_workers.py``; the group stage, where one process embeds the next batch
while the other stores the current one, went from 6.9 to 17.2 s). With one thread
each, the two took 14.8 s.

``SPANPROOF_WORKER_THREADS`` (``settings.SPANPROOF_WORKER_THREADS``, checked when the
settings load) sets the number per task; unset (or empty), it is the
CPUs this worker may use (``celery.utils.sysinfo.cpu_budget``: affinity and cgroup
quota) divided among its concurrent tasks, at least one. Several worker processes on
one machine cannot see each other: give each ``cores ÷ processes`` (README "Running N
workers"). ``config.celery`` wires this into the worker: resolved when the worker has
its concurrency, applied in each pool process (prefork children) or, for a pool of
threads, in the worker itself.
"""

from __future__ import annotations

import logging
import os
from typing import Final

from django.core.exceptions import ImproperlyConfigured

logger = logging.getLogger(__name__)

ENV: Final = "SPANPROOF_WORKER_THREADS"

_resolved: int | None = None


def parse_worker_threads(raw: str | None) -> int | None:
    """The setting's value: a whole number of at least 1, or None when unset or empty."""
    if raw is None or not raw.strip():
        return None
    try:
        threads = int(raw)
    except ValueError:
        threads = 0
    if threads < 1:
        raise ImproperlyConfigured(
            f"{ENV} must be a whole number of threads, at least 1 (got {raw!r})."
        )
    return threads


def worker_threads(*, cpus: int, concurrency: int, configured: int | None) -> int:
    """Threads per task: ``configured`` when set, else ``cpus`` shared among
    ``concurrency`` tasks, at least one."""
    if configured is not None:
        return configured
    return max(1, cpus // max(1, concurrency))


def resolve(*, concurrency: int) -> int:
    """Work out this worker's threads per task (kept for :func:`apply`) and say so."""
    global _resolved
    from celery.utils.sysinfo import cpu_budget
    from django.conf import settings

    cpus = cpu_budget().count
    configured: int | None = settings.SPANPROOF_WORKER_THREADS
    _resolved = worker_threads(cpus=cpus, concurrency=concurrency, configured=configured)
    logger.info(
        "Model threads per task: %d (%s; %d CPUs, concurrency %d).",
        _resolved,
        "automatic" if configured is None else ENV,
        cpus,
        concurrency,
    )
    return _resolved


def apply() -> None:
    """Size torch's intra-op pool in this process as :func:`resolve` decided (nothing
    when it has not run: a process that is not a worker keeps torch's own size)."""
    if _resolved is None:
        return
    import torch

    torch.set_num_threads(_resolved)
    logger.info("torch intra-op threads in process %d: %d.", os.getpid(), _resolved)
