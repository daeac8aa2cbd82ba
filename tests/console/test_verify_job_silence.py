"""A running verification job whose worker stopped beating while another worker is
alive says so on its page, as an ingest job's page does (one selector,
``job_worker_silence``, and one partial): "No word from its worker since …; it will be
sent to another worker (or failed) by …", instead of a frozen "Running…" until the
watchdog (``services.job_watch``) acts.

The job rows are real; the silence is made by setting ``heartbeat_at`` in the past."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from verifier import vocabulary
from verifier.models import VerificationJob
from verifier.services.worker_beats import worker_beat_record

STALE = 300
WATCH = 60
MAX_ATTEMPTS = 3
SILENT = vocabulary.JOB_LIVENESS["worker_silent"].label


@pytest.fixture(autouse=True)
def _a_worker_is_alive(settings, db):
    """Tasks go to workers, one of which is alive (it beat just now)."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = STALE
    settings.SPANPROOF_JOB_WATCH_SECONDS = WATCH
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = MAX_ATTEMPTS
    worker_beat_record(hostname="celery@alive")


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _running_job(workspace, *, silent_for: int, attempts: int = 0, runner: str = "1.ab.cd"):
    heartbeat = timezone.now() - timedelta(seconds=silent_for)
    return VerificationJob.objects.create(
        workspace=workspace,
        status="running",
        started_at=heartbeat - timedelta(minutes=1),
        runner=runner,
        heartbeat_at=heartbeat,
        attempts=attempts,
        total=2,
    )


def _page(client, job, *, htmx: bool = False) -> str:
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get(f"/verify/jobs/{job.pk}/", headers=headers)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "poll"])
def test_a_silent_worker_is_named_with_its_deadline(reviewer_client, workspace, htmx):
    job = _running_job(workspace, silent_for=150)  # two and a half beats of 60 s missed
    body = _page(reviewer_client, job, htmx=htmx)
    assert body.count('id="job-worker-silent"') == 1
    assert "Waiting for a worker" not in body  # a worker is alive: this is not that case
    assert f"{SILENT}</strong> since" in body
    assert f">{_utc(job.heartbeat_at)}</time>" in body
    deadline = job.heartbeat_at + timedelta(seconds=STALE + WATCH)
    assert "will be sent to another worker by <time datetime=" in body
    assert f">{_utc(deadline)}</time>, unless the worker is heard from again" in body
    assert "failed by" not in body


def test_a_beating_worker_says_nothing(reviewer_client, workspace):
    job = _running_job(workspace, silent_for=30)  # within its beat interval
    body = _page(reviewer_client, job)
    assert 'id="job-worker-silent"' not in body and SILENT not in body


def test_the_last_allowed_silence_says_the_job_will_fail(reviewer_client, workspace):
    # the verification watchdog counts a job's silent workers in ``attempts``
    job = _running_job(workspace, silent_for=200, attempts=MAX_ATTEMPTS - 1)
    body = _page(reviewer_client, job)
    deadline = job.heartbeat_at + timedelta(seconds=STALE + WATCH)
    assert "will be failed by <time datetime=" in body
    assert f">{_utc(deadline)}</time>: that makes {MAX_ATTEMPTS} silent workers for this job" in (
        body
    )


def test_a_watchdog_that_did_not_come_is_said(reviewer_client, workspace):
    job = _running_job(workspace, silent_for=STALE + WATCH + 120)
    body = _page(reviewer_client, job)
    assert "was due to be sent to another worker by" in body
    assert "the watchdog has not run" in body


def test_with_no_live_worker_the_waiting_alert_speaks_instead(reviewer_client, workspace):
    from verifier.services.worker_beats import worker_beat_forget

    worker_beat_forget(hostname="celery@alive")
    job = _running_job(workspace, silent_for=150)
    body = _page(reviewer_client, job)
    assert "Waiting for a worker since" in body
    assert 'id="job-worker-silent"' not in body


def test_a_finished_job_has_no_notice(reviewer_client, workspace):
    job = _running_job(workspace, silent_for=STALE + 10, attempts=MAX_ATTEMPTS)
    VerificationJob.objects.filter(pk=job.pk).update(
        status="failed", runner="", finished_at=timezone.now()
    )
    body = _page(reviewer_client, job)
    assert 'id="job-worker-silent"' not in body
