"""One thin Celery task per ingest stage: take the job id, run the stage service.

Each stage enqueues the next on commit (``services.ingest``). Tasks are acked late, so
a worker that dies mid-stage has the task redelivered and the stage resumes from its
recorded progress. Only transient database errors are retried here; an item's own
failure is recorded on the job by the runner and never retried blindly.
"""

from __future__ import annotations

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

from verifier.models import IngestStage
from verifier.services.enqueue import ingest_stage_task_name
from verifier.services.ingest import ingest_stage_run

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
# 5, 10, 20, 40, 60, 60 s (no jitter): about three minutes, long enough for the database
# to restart (``make run`` starts the embedded one again within seconds, with a doubling
# back-off while it fails) before the task gives up and the watchdog's stale period
# (``SPANPROOF_JOB_STALE_SECONDS``) is the next chance.
MAX_RETRIES = 6
RETRY_BACKOFF_SECONDS = 5
RETRY_BACKOFF_MAX_SECONDS = 60


def _stage_task(stage: str) -> Task:
    @shared_task(
        name=ingest_stage_task_name(stage),
        autoretry_for=TRANSIENT_ERRORS,
        max_retries=MAX_RETRIES,
        retry_backoff=RETRY_BACKOFF_SECONDS,
        retry_backoff_max=RETRY_BACKOFF_MAX_SECONDS,
        retry_jitter=False,
        acks_late=True,
    )
    def task(job_id: int) -> str | None:
        return ingest_stage_run(job_id=job_id, stage=stage)

    return task


# The services enqueue a stage by its name (``services.enqueue``); one task per stage.
STAGE_TASKS: dict[str, Task] = {stage: _stage_task(stage) for stage in IngestStage}
