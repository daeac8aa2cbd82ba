"""A calibrator change's job page says what every job page says of its worker (one
selector, ``job_liveness``): nothing about waiting while a worker is alive and takes the
job (it said "Waiting for a worker since …" for every queued job), the waiting alert
when no worker is live, and the silent-worker notice when the worker holding it went
quiet. The job rows are real; a worker's silence is an old ``heartbeat_at``."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_user
from verifier.models import CalibratorChangeJob
from verifier.services.judge_calibrators import judge_calibrator_activate, judge_calibrator_fit
from verifier.services.worker_beats import worker_beat_record


@pytest.fixture
def page(reviewed, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = 300
    admin = make_user("ada-admin", workspace=reviewed.workspace, role="admin")
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    job = judge_calibrator_activate(calibrator=row, actor=admin)
    client = Client()
    client.force_login(admin)
    url = reverse("audit:calibrator-job", args=[job.pk])

    def read(*, htmx: bool = False) -> str:
        headers = {"HX-Request": "true"} if htmx else {}
        response = client.get(url, headers=headers)
        assert response.status_code == 200
        return response.content.decode()

    read.job = job  # type: ignore[attr-defined]
    return read


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "poll"])
def test_a_queued_change_with_a_live_worker_is_not_said_to_wait(page, htmx):
    worker_beat_record(hostname="celery@alive")
    body = page(htmx=htmx)
    assert "Queued at" in body
    assert "Waiting for a worker" not in body


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "poll"])
def test_with_no_live_worker_the_waiting_alert_speaks(page, htmx):
    body = page(htmx=htmx)
    assert body.count('id="waiting-for-worker"') == 1
    assert "no Celery worker is running" in body
    assert "Queued at" not in body


def test_a_silent_worker_holding_the_change_is_named(page):
    worker_beat_record(hostname="celery@alive")
    beat = timezone.now() - timedelta(seconds=150)
    CalibratorChangeJob.objects.filter(pk=page.job.pk).update(
        status="running", runner="1.ab.cd", heartbeat_at=beat, started_at=beat
    )
    body = page(htmx=True)
    assert body.count('id="job-worker-silent"') == 1
    assert "sent to another worker by" in body
