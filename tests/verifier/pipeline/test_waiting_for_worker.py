"""A job without a live worker says so: "waiting for a worker since HH:MM" on its page
and in /healthz, until a worker beats again (``verifier.selectors.worker_beats``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from verifier.models import IngestJob, VerificationJob, WorkerBeat
from verifier.selectors.worker_beats import WORKER_STALE_SECONDS
from verifier.services.worker_beats import worker_beat_forget, worker_beat_record


@pytest.fixture(autouse=True)
def _tasks_go_to_a_worker(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False


def _hhmm(moment) -> str:
    return timezone.localtime(moment).strftime("%H:%M UTC")


@pytest.fixture
def jobs(workspace):
    ingest = IngestJob.objects.create(workspace=workspace)
    verify = VerificationJob.objects.create(workspace=workspace, total=1)
    return ingest, verify


def _pages(client, jobs) -> list[str]:
    ingest, verify = jobs
    return [
        client.get(f"/ingest/jobs/{ingest.pk}/").content.decode(),
        client.get(f"/verify/jobs/{verify.pk}/").content.decode(),
    ]


def test_no_worker_ever_beat(reviewer_client, jobs):
    ingest, verify = jobs
    for body, job in zip(_pages(reviewer_client, jobs), jobs, strict=True):
        assert "Waiting for a worker since <time datetime=" in body
        assert f">{_hhmm(job.created_at)}</time>" in body
    workers = Client().get("/healthz").json()["checks"]["workers"]
    assert workers["live"] is False and workers["last_beat"] is None
    assert [(w["kind"], w["id"]) for w in workers["waiting"]] == [
        ("ingest", ingest.pk),
        ("verification", verify.pk),
    ]
    assert (
        workers["waiting"][0]["message"] == f"waiting for a worker since {_hhmm(ingest.created_at)}"
    )


def test_a_live_worker_clears_it(reviewer_client, jobs):
    worker_beat_record(hostname="celery@here")
    assert all("Waiting for a worker" not in body for body in _pages(reviewer_client, jobs))
    workers = Client().get("/healthz").json()["checks"]["workers"]
    assert workers["live"] is True and workers["waiting"] == []
    # a clean shutdown forgets the worker at once
    worker_beat_forget(hostname="celery@here")
    assert Client().get("/healthz").json()["checks"]["workers"]["live"] is False


def test_a_worker_that_went_silent_counts_from_its_last_beat(reviewer_client, jobs):
    ingest, _ = jobs
    IngestJob.objects.filter(pk=ingest.pk).update(
        created_at=timezone.now() - timedelta(hours=2),
    )
    silent = timezone.now() - timedelta(seconds=WORKER_STALE_SECONDS + 60)
    WorkerBeat.objects.create(hostname="celery@gone", beat_at=silent)
    body = _pages(reviewer_client, jobs)[0]
    assert f">{_hhmm(silent)}</time>" in body


def test_a_finished_job_waits_for_nothing(reviewer_client, jobs):
    ingest, verify = jobs
    IngestJob.objects.filter(pk=ingest.pk).update(status="succeeded")
    VerificationJob.objects.filter(pk=verify.pk).update(status="succeeded")
    assert all("Waiting for a worker" not in body for body in _pages(reviewer_client, jobs))
    assert Client().get("/healthz").json()["checks"]["workers"]["waiting"] == []
