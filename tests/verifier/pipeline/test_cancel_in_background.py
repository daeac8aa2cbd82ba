"""Cancelling a big ingest job answers at once: the job is cancelled in one short
transaction, and its thousands of unjudged claims are excluded afterwards by a task
sent on commit, batch by batch, safe to rerun; the watchdog sends it again when its
worker died mid-way. The job page says it is under way and then done, and the stage
the job stopped at says so (with the claims extraction had made)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_source
from verifier.models import Claim, ClaimOrigin, IngestJob, IngestStatus, StateEvent
from verifier.services import ingest as ingest_service
from verifier.services.ingest import (
    CANCEL_EXCLUSION,
    cancelled_exclusion_reason,
    ingest_job_cancel,
)
from verifier.services.ingest_watch import ingest_jobs_watch

pytestmark = pytest.mark.django_db

CLAIMS = 7


def _job_mid_extraction(workspace, claims: int = CLAIMS) -> IngestJob:
    """A job cancelled while its one file was being extracted: the claims the
    extractor had stored so far, its item not done."""
    source = make_source(workspace)
    job = IngestJob.objects.create(
        workspace=workspace,
        status=IngestStatus.RUNNING,
        stage="extract",
        progress={"extract": {"done": 0, "total": 1, "failed": 0, "completed": []}},
    )
    Claim.objects.bulk_create(
        Claim(
            workspace=workspace,
            source=source,
            text=f"Claim number {i} holds.",
            original_text=f"Claim number {i} holds.",
            origin=ClaimOrigin.EXTRACTED,
            ingest_job=job,
        )
        for i in range(claims)
    )
    return job


def _excluded(job: IngestJob) -> int:
    return Claim.objects.filter(ingest_job=job, state="excluded").count()


def test_the_cancel_answers_before_the_claims_are_excluded(
    workspace, django_capture_on_commit_callbacks, django_assert_max_num_queries
):
    job = _job_mid_extraction(workspace, claims=50)
    # a fixed few queries, whatever the number of claims
    with (
        django_capture_on_commit_callbacks(execute=False) as sent,
        django_assert_max_num_queries(8),
    ):
        assert ingest_job_cancel(job=job)
    job.refresh_from_db()
    assert job.status == IngestStatus.CANCELLED  # its workers stop at once
    assert _excluded(job) == 0
    assert job.progress[CANCEL_EXCLUSION]["completed"] is False
    assert len(sent) == 1

    sent[0]()  # the worker runs the task

    job.refresh_from_db()
    assert _excluded(job) == 50
    assert job.progress[CANCEL_EXCLUSION]["excluded"] == 50
    assert job.progress[CANCEL_EXCLUSION]["completed"] is True


def test_a_worker_killed_mid_way_is_finished_by_the_watchdog(
    workspace, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(ingest_service, "CANCEL_EXCLUDE_BATCH", 3)
    job = _job_mid_extraction(workspace)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        assert ingest_job_cancel(job=job)
    real_mark = ingest_service._cancel_exclusion_mark
    marks = []

    def killed_after_one_batch(job_id, **kwargs):
        if marks:
            raise SystemExit("the worker was killed")
        marks.append(kwargs)
        real_mark(job_id, **kwargs)

    monkeypatch.setattr(ingest_service, "_cancel_exclusion_mark", killed_after_one_batch)
    with pytest.raises(SystemExit):
        sent[0]()
    monkeypatch.setattr(ingest_service, "_cancel_exclusion_mark", real_mark)
    job.refresh_from_db()
    assert _excluded(job) == 3  # the first batch committed, the second rolled back
    assert job.progress[CANCEL_EXCLUSION] | {"beat_at": None} == {
        "excluded": 3,
        "completed": False,
        "actor_id": None,
        "beat_at": None,
    }

    # not while it may still be running
    assert ingest_jobs_watch().excluding == []
    later = timezone.now() + timedelta(hours=1)
    with django_capture_on_commit_callbacks(execute=True):
        report = ingest_jobs_watch(now=later)
    assert report.excluding == [job.pk]

    job.refresh_from_db()
    assert _excluded(job) == CLAIMS
    assert job.progress[CANCEL_EXCLUSION]["excluded"] == CLAIMS
    assert job.progress[CANCEL_EXCLUSION]["completed"] is True
    reason = cancelled_exclusion_reason(job.pk)
    events = StateEvent.objects.filter(claim__ingest_job=job, to_state="excluded")
    assert events.count() == CLAIMS  # each claim once
    assert all(reason in e.cause for e in events)
    # done: the watchdog leaves it, and a rerun of the task excludes nothing
    assert ingest_jobs_watch(now=later + timedelta(hours=1)).excluding == []
    assert ingest_service.ingest_job_cancelled_claims_exclude(job_id=job.pk) == 0


def test_the_job_page_says_the_exclusion_is_under_way_then_done(
    workspace, reviewer_client, django_capture_on_commit_callbacks
):
    job = _job_mid_extraction(workspace)
    with django_capture_on_commit_callbacks(execute=False) as sent:
        response = reviewer_client.post(f"/ingest/jobs/{job.pk}/cancel/", follow=True)
    page = response.content.decode()
    assert "being excluded" in page and "in the background" in page
    assert f"Job #{job.pk} cancelled; excluding the claims it had not judged…" in page
    assert "Excluding the claims this job had not judged, in the background: 0 so far" in page
    # the page keeps polling until the exclusion is done
    assert 'hx-trigger="every 1s"' in page
    poll = reviewer_client.get(f"/ingest/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert poll.status_code == 200

    sent[0]()

    poll = reviewer_client.get(f"/ingest/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert poll.status_code == 286  # done: htmx stops polling
    body = poll.content.decode()
    assert f"Job #{job.pk} cancelled; the claims it had not judged are excluded." in body
    assert f"Claims this job had not judged: {CLAIMS} excluded" in body
    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' not in page
    # the event names who cancelled
    event = StateEvent.objects.filter(claim__ingest_job=job, to_state="excluded").first()
    assert event.actor.username == "rita"


def test_the_stage_a_big_file_was_cancelled_in_counts_its_claims(
    workspace, reviewer_client, django_capture_on_commit_callbacks
):
    job = _job_mid_extraction(workspace)
    with django_capture_on_commit_callbacks(execute=True):
        reviewer_client.post(f"/ingest/jobs/{job.pk}/cancel/")
    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    # "Extract 0 / 1" beside "7 Excluded" read as if nothing had been extracted
    row = f"cancelled mid-file, after extracting {CLAIMS} claims</span>"
    assert f'0 / 1 · <span class="status-cancelled">{row}' in page
    assert page.count('status-cancelled">cancelled') == 1  # only the stage it stopped at
