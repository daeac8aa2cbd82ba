"""A database restart under a running ingest shard: the leases it could not hand back
while the database was gone are handed back by the next shard of the same process (a
retried task), so the item runs again at once instead of after its lease goes stale."""

from __future__ import annotations

import logging

import pytest
from django.db import connection

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import IngestItem, IngestItemStatus, IngestStatus
from verifier.services import ingest

pytestmark = pytest.mark.django_db(transaction=True)


def test_leases_a_shard_could_not_release_are_released_by_the_next_shard(
    workspace, monkeypatch, caplog
):
    job = unstarted_job(workspace)
    job = ingest._begin(job.pk, "extract")
    assert job is not None
    ingest._list_items(job, "extract")
    item = IngestItem.objects.filter(job=job, stage="extract").order_by("position").first()
    IngestItem.objects.filter(pk=item.pk).update(status=IngestItemStatus.RUNNING, runner="shard-x")

    connection.close()
    # The server is down: nothing listens there.
    with caplog.at_level(logging.WARNING, logger=ingest.__name__), monkeypatch.context() as gone:
        gone.setitem(connection.settings_dict, "HOST", "/nonexistent-socket-dir")
        gone.setitem(connection.settings_dict, "PORT", "1")
        ingest._release(job, "extract", "shard-x")  # logs, never raises
    assert "could not release the extract items" in caplog.text
    item.refresh_from_db()
    assert item.status == IngestItemStatus.RUNNING  # nothing could be written

    # The database is back; the retried task's shard runs the stage (and, the tasks
    # being eager here, the rest of the job).
    assert ingest.ingest_stage_run(job_id=job.pk, stage="extract") == "relate"
    item.refresh_from_db()
    assert item.status == IngestItemStatus.DONE
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED


def test_a_stage_task_keeps_retrying_through_a_database_restart():
    """Celery's own back-off for the stage tasks' transient database errors spans
    minutes, without jitter (three jittered retries were all spent in the ten seconds an
    embedded PostgreSQL took to start again)."""
    from celery.utils.time import get_exponential_backoff_interval

    from verifier.pipeline.stages import STAGE_TASKS

    for task in STAGE_TASKS.values():
        assert task.retry_jitter is False
        waits = [
            get_exponential_backoff_interval(
                factor=task.retry_backoff,
                retries=n,
                maximum=task.retry_backoff_max,
                full_jitter=False,
            )
            for n in range(task.max_retries)
        ]
        assert waits[0] <= 5 and sum(waits) >= 120
