"""One ingest job end to end through a real Celery worker on the real Redis broker."""

from __future__ import annotations

import time
import uuid

import pytest
from celery.contrib.testing.worker import start_worker

from tests.factories import make_workspace
from tests.verifier.pipeline.conftest import DOC_A, DOC_B, REDIS_URL, skip_unless_redis
from tests.verifier.pipeline.receiver import Receiver
from verifier.models import Claim, IngestJob, WebhookDelivery
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.webhooks import webhook_create

TIMEOUT_SECONDS = 180


def _reset_pools(app) -> None:
    """Drop connections made for the previous broker URL."""
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture
def redis_app(settings):
    skip_unless_redis()
    from config.celery import app

    saved = {
        key: app.conf[key]
        for key in (
            "broker_url",
            "broker_transport_options",
            "task_default_queue",
            "task_always_eager",
        )
    }
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.update(
        broker_url=REDIS_URL,
        broker_transport_options={},
        task_default_queue=f"test-ingest-{uuid.uuid4().hex[:8]}",
        task_always_eager=False,
    )
    _reset_pools(app)
    yield app
    app.conf.update(saved)
    _reset_pools(app)


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_job_runs_through_a_real_worker(redis_app):
    workspace = make_workspace("worker")
    with (
        Receiver() as receiver,
        start_worker(redis_app, pool="solo", perform_ping_check=False, shutdown_timeout=30),
    ):
        webhook_create(
            workspace=workspace, url=receiver.url, secret="w" * 20, events=["job.completed"]
        )
        job = ingest_job_create(
            workspace=workspace,
            sources=[
                SourceUpload(ref="source:a", text=DOC_A),
                SourceUpload(ref="source:b", text=DOC_B),
            ],
        )
        deadline = time.monotonic() + TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            job.refresh_from_db()
            delivered = WebhookDelivery.objects.filter(status="delivered").exists()
            if job.status not in ("queued", "running") and delivered:
                break
            time.sleep(0.2)
    job = IngestJob.objects.get(pk=job.pk)
    assert job.status == "succeeded", (job.status, job.stage, job.errors)
    assert all(e["done"] == e["total"] for e in job.progress.values())
    assert Claim.objects.filter(ingest_job=job, published=True).count() == 7
    assert job.quality_report["trust"]["score"] > 0
    assert len(receiver.requests) == 1
