"""The Celery tasks the services enqueue, sent once the surrounding transaction commits.

The tasks live in ``verifier.pipeline`` and call the services; the services reach them
here by their registered names, never by importing the pipeline (so dependencies point
one way: pipeline -> services). A name is looked up in the Celery app's registry, which
holds the task object itself, so eager mode (tests, the in-process ``manage.py
ingest``) runs it at once as before. A process that has not imported the task modules
yet (a web process) imports ``CELERY_IMPORTS`` first, as a worker does at start-up.

Each name is written once: the pipeline's ``@shared_task(name=...)`` uses the same
constant.
"""

from __future__ import annotations

from typing import Any, Final

from celery import current_app
from django.db import transaction

INGEST_STAGE_PREFIX: Final = "verifier.pipeline.stages."
RUN_VERIFICATION_JOB: Final = "verifier.pipeline.tasks.run_verification_job"
RUN_AUDIT_PACK_JOB: Final = "verifier.pipeline.tasks.run_audit_pack_job"
RUN_CALIBRATOR_CHANGE_JOB: Final = "verifier.pipeline.tasks.run_calibrator_change_job"
# The review console's own tasks live in ``review/tasks.py`` (Celery's autodiscovery):
# they call the review services, which the verifier never imports.
RUN_REVIEW_REJUDGE_JOB: Final = "review.tasks.run_review_rejudge_job"
DELIVER_WEBHOOK: Final = "verifier.pipeline.webhooks.deliver_webhook"
RECLASS_CLAIMS: Final = "verifier.pipeline.tasks.reclass_claims"
EXCLUDE_CANCELLED_CLAIMS: Final = "verifier.pipeline.tasks.exclude_cancelled_claims"
WORKER_CLAIM_VERIFY: Final = "verifier.pipeline.worker_tasks.worker_claim_verify"


def ingest_stage_task_name(stage: str) -> str:
    """The registered name of the task that runs one shard of an ingest stage."""
    return f"{INGEST_STAGE_PREFIX}{stage}"


def registered_task(name: str) -> Any:
    """The task registered as ``name`` (``celery.Task``), importing the configured task
    modules first when this process has not yet."""
    tasks = current_app.tasks
    if name not in tasks:
        current_app.loader.import_default_modules()
    return tasks[name]


def task_enqueue_on_commit(name: str, *args: Any, copies: int = 1) -> None:
    """Send ``copies`` runs of task ``name`` with ``args`` once the surrounding
    transaction commits (at once outside one), all from one on-commit callback. The name
    is resolved now, so an unknown one fails in the caller."""
    task = registered_task(name)

    def send() -> None:
        for _ in range(copies):
            task.delay(*args)

    transaction.on_commit(send)
