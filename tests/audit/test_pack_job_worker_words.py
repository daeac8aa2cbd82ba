"""An audit pack's job page says what every job page says of its worker (one selector,
``job_liveness``): the waiting alert when no worker is live and the silent-worker notice
when the worker holding the export went quiet (it said neither: a stuck export read
"Queued" or "Running" until the watchdog acted). Real job rows; a worker's silence is an
old ``heartbeat_at``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from verifier.models import AuditPackJob
from verifier.services.worker_beats import worker_beat_record


@pytest.fixture(autouse=True)
def _workers_are_real(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = 300


def _read(client, job, *, htmx: bool) -> str:
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get(reverse("audit:pack-job", args=[job.pk]), headers=headers)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "poll"])
def test_with_no_live_worker_the_waiting_alert_speaks(auditor_client, workspace, htmx):
    job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"}, total=3)
    body = _read(auditor_client, job, htmx=htmx)
    assert body.count('id="waiting-for-worker"') == 1
    assert "no Celery worker is running" in body


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "poll"])
def test_a_silent_worker_holding_the_export_is_named(auditor_client, workspace, htmx):
    worker_beat_record(hostname="celery@alive")
    beat = timezone.now() - timedelta(seconds=150)
    job = AuditPackJob.objects.create(
        workspace=workspace,
        scope={"scope": "claims"},
        total=3,
        status="running",
        runner="1.ab.cd",
        heartbeat_at=beat,
        started_at=beat,
    )
    body = _read(auditor_client, job, htmx=htmx)
    assert body.count('id="job-worker-silent"') == 1
    assert "Waiting for a worker" not in body
    assert "sent to another worker by" in body
