"""The one module the services enqueue tasks through (``services.enqueue``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import transaction

from verifier.models import IngestStage
from verifier.services import enqueue

ROOT = Path(__file__).resolve().parents[3]
NAMES = (
    enqueue.RUN_VERIFICATION_JOB,
    enqueue.RUN_AUDIT_PACK_JOB,
    enqueue.RUN_REVIEW_REJUDGE_JOB,
    enqueue.DELIVER_WEBHOOK,
    enqueue.WORKER_CLAIM_VERIFY,
    *(enqueue.ingest_stage_task_name(stage) for stage in IngestStage),
)


@pytest.mark.parametrize("name", NAMES)
def test_every_name_the_services_send_is_a_registered_task(name):
    assert enqueue.registered_task(name).name == name


def test_an_unknown_name_fails_in_the_caller_not_at_commit():
    with pytest.raises(KeyError):
        enqueue.task_enqueue_on_commit("verifier.pipeline.tasks.no_such_task", 1)


@pytest.mark.django_db(transaction=True)
def test_the_runs_are_sent_once_the_transaction_commits(monkeypatch):
    task = enqueue.registered_task(enqueue.WORKER_CLAIM_VERIFY)
    sent: list[tuple[int, ...]] = []
    monkeypatch.setattr(task, "delay", lambda *args: sent.append(args))
    with transaction.atomic():
        enqueue.task_enqueue_on_commit(enqueue.WORKER_CLAIM_VERIFY, 7, copies=3)
        assert sent == []
    assert sent == [(7,), (7,), (7,)]
    with transaction.atomic():
        enqueue.task_enqueue_on_commit(enqueue.WORKER_CLAIM_VERIFY, 8)
        transaction.set_rollback(True)
    assert sent == [(7,), (7,), (7,)]


def test_a_process_that_never_imported_the_pipeline_finds_the_tasks():
    """A web process imports no task module; the lookup imports ``CELERY_IMPORTS`` as a
    worker does at start-up."""
    code = (
        "import sys, django; django.setup()\n"
        "from verifier.services import enqueue\n"
        "assert not any(m.startswith('verifier.pipeline.') for m in sys.modules), 'imported'\n"
        "print(enqueue.registered_task(enqueue.RUN_VERIFICATION_JOB).name)\n"
        # the review console's tasks, found by Celery's autodiscovery (review/tasks.py)
        "print(enqueue.registered_task(enqueue.RUN_REVIEW_REJUDGE_JOB).name)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [enqueue.RUN_VERIFICATION_JOB, enqueue.RUN_REVIEW_REJUDGE_JOB]
