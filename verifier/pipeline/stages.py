"""One thin Celery task per ingest stage: take the job id, run the stage service.

Each stage enqueues the next on commit (``services.ingest``). Tasks are acked late, so
a worker that dies mid-stage has the task redelivered and the stage resumes from its
recorded progress. Only transient database errors are retried here; an item's own
failure is recorded on the job by the runner and never retried blindly.
"""

from __future__ import annotations

from typing import Any

from celery import Task, shared_task
from django.db import InterfaceError, OperationalError

from verifier.models import IngestStage

TRANSIENT_ERRORS = (OperationalError, InterfaceError)
MAX_RETRIES = 3
RETRY_BACKOFF_SECONDS = 5


def _run(job_id: int, stage: str) -> str | None:
    from verifier.services.ingest import ingest_stage_run

    return ingest_stage_run(job_id=job_id, stage=stage)


def _stage_task(stage: str) -> Task:
    @shared_task(
        name=f"verifier.pipeline.stages.{stage}",
        autoretry_for=TRANSIENT_ERRORS,
        max_retries=MAX_RETRIES,
        retry_backoff=RETRY_BACKOFF_SECONDS,
        acks_late=True,
    )
    def task(job_id: int) -> str | None:
        return _run(job_id, stage)

    return task


extract_stage = _stage_task(IngestStage.EXTRACT)
relate_stage = _stage_task(IngestStage.RELATE)
group_stage = _stage_task(IngestStage.GROUP)
embed_stage = _stage_task(IngestStage.EMBED)
validate_stage = _stage_task(IngestStage.VALIDATE)
remediate_stage = _stage_task(IngestStage.REMEDIATE)
store_stage = _stage_task(IngestStage.STORE)

STAGE_TASKS: dict[str, Any] = {
    IngestStage.EXTRACT: extract_stage,
    IngestStage.RELATE: relate_stage,
    IngestStage.GROUP: group_stage,
    IngestStage.EMBED: embed_stage,
    IngestStage.VALIDATE: validate_stage,
    IngestStage.REMEDIATE: remediate_stage,
    IngestStage.STORE: store_stage,
}
