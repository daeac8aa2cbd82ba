"""Background verification jobs: a job whose worker went silent runs again and verifies
each claim once, or fails with the reason; a live worker is never doubled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Count
from django.utils import timezone

from verifier.models import Claim, Verdict, VerificationJob
from verifier.services import claim_verification
from verifier.services.claim_verification import (
    ClaimSubmission,
    verification_job_create,
    verification_job_run,
)
from verifier.services.verification_job_watch import verification_jobs_watch

SENTENCES = [
    "Salt marsh grasses trap silt at high tide.",
    "Sediment settles where the current slows.",
    "The delta gains land in wet years.",
    "The lighthouse was built in 1871.",
    "Fishing boats leave before dawn.",
]


class Killed(BaseException):
    """Stands in for SIGKILL: nothing in the job's code gets to handle it."""


@pytest.fixture(autouse=True)
def _settings(settings, monkeypatch):
    settings.SPANPROOF_JOB_STALE_SECONDS = 60
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3
    monkeypatch.setattr(claim_verification, "JOB_CHUNK_SIZE", 2)


@pytest.fixture
def job(workspace):
    from tests.factories import make_source

    source = make_source(workspace, ref="source:delta", text=" ".join(SENTENCES))
    return verification_job_create(
        workspace=workspace,
        claims=[ClaimSubmission(text=s, source=source.ref) for s in SENTENCES],
        enqueue=False,
    )


def _killed_after_first_chunk(job: VerificationJob) -> None:
    def die(done: int, total: int) -> None:
        raise Killed

    with pytest.raises(Killed):
        verification_job_run(job_id=job.pk, on_progress=die)
    # what SIGKILL leaves: the lease still held, the heartbeat stopped
    VerificationJob.objects.filter(pk=job.pk).update(
        runner="dead-worker", heartbeat_at=timezone.now() - timedelta(seconds=120)
    )


def test_a_silent_job_runs_again_and_verifies_each_claim_once(
    job, django_capture_on_commit_callbacks
):
    _killed_after_first_chunk(job)
    job.refresh_from_db()
    assert job.status == "running" and job.done == 2

    with django_capture_on_commit_callbacks(execute=True):
        report = verification_jobs_watch()

    assert report.requeued == [job.pk] and report.failed == []
    job.refresh_from_db()
    assert job.status == "succeeded" and job.done == job.total == len(SENTENCES)
    assert job.attempts == 1 and job.runner == ""
    claims = Claim.objects.filter(workspace=job.workspace)
    assert claims.count() == len(SENTENCES)
    per_claim = Verdict.objects.filter(claim__in=claims).values("claim").annotate(n=Count("pk"))
    assert sorted(row["n"] for row in per_claim) == [1] * len(SENTENCES)


def test_a_live_worker_is_not_doubled(job):
    VerificationJob.objects.filter(pk=job.pk).update(
        status="running", runner="alive", heartbeat_at=timezone.now()
    )
    verification_job_run(job_id=job.pk)  # a redelivered message
    job.refresh_from_db()
    assert job.status == "running" and job.done == 0 and job.runner == "alive"
    assert not Verdict.objects.filter(claim__workspace=job.workspace).exists()
    assert verification_jobs_watch().requeued == []


def test_a_job_that_keeps_losing_its_worker_fails_with_the_reason(
    job, django_capture_on_commit_callbacks
):
    for attempt in (1, 2, 3):
        VerificationJob.objects.filter(pk=job.pk).update(
            status="running",
            runner="dead-worker",
            heartbeat_at=timezone.now() - timedelta(seconds=120),
        )
        with django_capture_on_commit_callbacks(execute=False) as enqueued:
            report = verification_jobs_watch()
        job.refresh_from_db()
        if attempt < 3:
            assert report.requeued == [job.pk] and len(enqueued) == 1
            assert job.attempts == attempt and job.status == "running"
    assert report.failed == [job.pk] and enqueued == []
    assert job.status == "failed" and job.finished_at
    assert "went silent 3 times" in job.error


def test_healthz_lists_a_stuck_verification_job(job, client):
    VerificationJob.objects.filter(pk=job.pk).update(
        status="running", runner="x", heartbeat_at=timezone.now() - timedelta(seconds=120)
    )
    check = client.get("/healthz").json()["checks"]["verification_jobs"]
    assert check["ok"] is False
    assert [(j["id"], j["status"]) for j in check["stuck"]] == [(job.pk, "running")]
