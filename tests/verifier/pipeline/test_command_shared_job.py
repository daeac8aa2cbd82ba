"""``manage.py ingest`` run here while Celery workers share the database (a console on
the same data folder): a stage a worker holds is followed to the job's end, not
reported as stopped; an exception that ends the run here is shown as the error."""

from __future__ import annotations

import io
import threading
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from tests.factories import make_workspace
from tests.verifier.pipeline.conftest import DOC_A
from verifier.models import IngestJob
from verifier.services.ingest import SERIAL_LOCK_CLASS, ingest_stage_run

WAIT_SECONDS = 180


def _next_job_id() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [IngestJob._meta.db_table]
        )
        return int(cursor.fetchone()[0]) + 1


@pytest.mark.django_db(transaction=True)
def test_a_stage_a_worker_holds_is_followed_to_the_end(tmp_path):
    make_workspace("cli")
    (tmp_path / "delta.txt").write_text(DOC_A)
    job_id = _next_job_id()
    # Another worker runs an item of the job's serial stage (relate): it holds the
    # job's serial lock, so the run here finds nothing it may take and ends.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, %s)", [SERIAL_LOCK_CLASS, job_id])
    out, err = io.StringIO(), io.StringIO()
    failure: list[BaseException] = []

    def command() -> None:
        try:
            call_command("ingest", str(tmp_path), "--workspace", "cli", stdout=out, stderr=err)
        except BaseException as exc:
            failure.append(exc)
        finally:
            connection.close()

    thread = threading.Thread(target=command, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while "took over" not in err.getvalue() and thread.is_alive():
        assert time.monotonic() < deadline, err.getvalue()
        time.sleep(0.2)
    assert not failure, failure
    assert thread.is_alive()
    assert IngestJob.objects.get(pk=job_id).status == "running"
    # The worker lets go and runs the rest of the job; the command follows it.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [SERIAL_LOCK_CLASS, job_id])
    ingest_stage_run(job_id=job_id, stage="relate")
    thread.join(WAIT_SECONDS)
    assert not thread.is_alive() and not failure, failure
    assert IngestJob.objects.get(pk=job_id).status == "succeeded"
    assert f"job #{job_id} succeeded" in out.getvalue()
    assert f"/ingest/jobs/{job_id}/" in err.getvalue()


@pytest.mark.django_db(transaction=True)
def test_the_error_that_ended_the_run_here_is_shown(tmp_path, settings):
    make_workspace("cli")
    (tmp_path / "delta.txt").write_text(DOC_A)
    settings.SPANPROOF_INGEST_SHARDS = "two"  # the first stage cannot be enqueued
    with pytest.raises(CommandError) as stopped:
        call_command(
            "ingest",
            str(tmp_path),
            "--workspace",
            "cli",
            stdout=io.StringIO(),
            stderr=io.StringIO(),
        )
    message = str(stopped.value)
    assert "the run here failed: ValueError: invalid literal for int()" in message
    assert "is still queued" in message
