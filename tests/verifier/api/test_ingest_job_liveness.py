"""An ingest job's liveness over the API: the heartbeat of the worker running its stage
and the watchdog's re-enqueues (a dead worker's job no longer looks healthy while its
stale window runs); cancelling leaves no item pending or running."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from verifier.models import IngestItem, IngestStatus
from verifier.services.ingest_create import SourceUpload, ingest_job_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def job(workspace):
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref="source:a", text="The tide turns.")],
        start=False,
    )
    return job


def test_the_job_shows_its_heartbeat_and_stage_attempts(api, job):
    answer = api.get(f"/connect/v1/ingest-jobs/{job.pk}").json()
    assert answer["heartbeat_at"] is None and answer["stage_attempts"] == 0
    beat = timezone.now() - timedelta(minutes=7)
    job.status, job.stage, job.heartbeat_at, job.stage_attempts = "running", "extract", beat, 2
    job.save()
    answer = api.get(f"/connect/v1/ingest-jobs/{job.pk}").json()
    assert answer["status"] == "running"
    assert answer["heartbeat_at"] == beat.isoformat().replace("+00:00", "Z")
    assert answer["stage_attempts"] == 2
    listed = api.get("/connect/v1/ingest-jobs").json()["results"][0]
    assert listed["id"] == job.pk and listed["stage_attempts"] == 2


def test_cancelling_marks_the_unfinished_items_cancelled(api, job):
    job.status, job.stage = "running", "extract"
    job.save()
    now = timezone.now()
    items = {
        status: IngestItem.objects.create(
            job=job,
            stage="extract",
            key=f"k-{status}",
            position=i,
            status=status,
            runner="dead-shard" if status == "running" else "",
            heartbeat_at=now if status == "running" else None,
        )
        for i, status in enumerate(("pending", "running", "done", "failed"))
    }
    response = api.post(f"/connect/v1/ingest-jobs/{job.pk}/cancel")
    assert response.status_code == 200 and response.json()["status"] == IngestStatus.CANCELLED
    after = {status: IngestItem.objects.get(pk=item.pk) for status, item in items.items()}
    assert after["pending"].status == after["running"].status == "cancelled"
    assert after["running"].runner == "" and after["running"].finished_at is not None
    assert (after["done"].status, after["failed"].status) == ("done", "failed")
