import logging
import os
from typing import Any

from celery import Celery
from celery.signals import celeryd_after_setup, worker_process_init, worker_ready, worker_shutdown
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# ``filesystem://`` means kombu's filesystem transport with atomic writes and claims
# (config/filesystem_broker.py) in every process that loads this app: web, worker, beat.
TRANSPORT_ALIASES["filesystem"] = "config.filesystem_broker:Transport"

logger = logging.getLogger(__name__)

app = Celery("spanproof")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@celeryd_after_setup.connect
def size_model_threads(sender: str, instance: Any, **kwargs: Any) -> None:
    """Threads per task for the models (``verifier.worker_threads``), once the worker
    knows its concurrency and before its pool starts. A pool of threads runs tasks in
    this process, so torch is sized here; prefork children size it themselves."""
    from celery.concurrency.prefork import TaskPool as PreforkPool

    from verifier import worker_threads

    worker_threads.resolve(concurrency=int(instance.concurrency))
    pool = instance.pool_cls
    if not (isinstance(pool, type) and issubclass(pool, PreforkPool)):
        worker_threads.apply()


@worker_process_init.connect
def apply_model_threads(**kwargs: Any) -> None:
    from verifier import worker_threads

    worker_threads.apply()


def _hostname(sender: Any) -> str:
    """The worker's node name and process id: two workers on one machine may share a
    node name, and each must count (and be forgotten) on its own."""
    name = getattr(sender, "hostname", "") or f"celery@{os.uname().nodename}"
    return f"{name}:{os.getpid()}"


@worker_ready.connect
def start_liveness_beat(sender: Any = None, **kwargs: Any) -> None:
    """The worker records a sign of life every few seconds (``verifier.worker_liveness``):
    jobs left without a live worker say so on their page and in /healthz."""
    from verifier.worker_liveness import start_beating

    start_beating(hostname=_hostname(sender))


@worker_ready.connect
def reclaim_dead_leases(sender: Any = None, **kwargs: Any) -> None:
    """A worker restarted after its predecessor on this host was killed outright takes
    back at once the jobs that one held (ingest stages, verification batches, audit-pack
    exports, calibrator changes), not after the watchdogs' stale period
    (``verifier.services.job_reclaim``). A kind that fails here is left to its watchdog."""
    from django.db import connection

    from verifier.services.job_reclaim import jobs_reclaim_dead_here

    try:
        reports = jobs_reclaim_dead_here()
    except Exception:
        logger.exception("could not take back the jobs of a dead worker here")
        return
    finally:
        connection.close()
    for kind, report in reports.items():
        summary = reclaim_summary(kind, report)
        if summary:
            logger.warning("%s", summary)


def reclaim_summary(kind: str, report: Any) -> str:
    """What a starting worker did with the ``kind`` jobs it took back
    (``verifier.services.job_reclaim``), each count in words; "" when nothing. A
    ``report`` is a watchdog's: ``requeued`` (every job sent again), ``resent`` (those of
    them that were waiting with no worker: their message was lost, or still waits behind
    others), ``failed``."""
    resent = len(report.resent)
    silent = len(report.requeued) - resent
    failed = len(report.failed)
    parts = []
    if silent:
        parts.append(f"{_jobs(silent)} whose worker died or went silent sent to the workers again")
    if resent:
        parts.append(
            f"{_jobs(resent)} still waiting for a worker sent again (the message may have "
            "been lost)"
        )
    if failed:
        parts.append(f"{_jobs(failed)} failed: too many of their workers went silent")
    if not parts:
        return ""
    ids = ", ".join(f"#{pk}" for pk in sorted([*report.requeued, *report.failed]))
    return f"worker start, {kind} jobs: {'; '.join(parts)} ({ids})"


def _jobs(count: int) -> str:
    return f"{count} job" if count == 1 else f"{count} jobs"


@worker_shutdown.connect
def stop_liveness_beat(sender: Any = None, **kwargs: Any) -> None:
    from verifier.worker_liveness import stop_beating

    stop_beating(hostname=_hostname(sender))
