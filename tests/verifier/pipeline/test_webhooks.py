from __future__ import annotations

import hashlib
import hmac
import json

import pytest

from tests.verifier.pipeline.receiver import Receiver
from verifier.models import WebhookAttempt, WebhookDelivery
from verifier.services import webhooks
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.webhooks import (
    MAX_ATTEMPTS,
    SIGNATURE_HEADER,
    WebhookInputError,
    retry_delay,
    webhook_create,
)

SECRET = "s3cret-for-webhook-tests"


def _hook(workspace, url, events=("job.completed",), threshold=90):
    return webhook_create(
        workspace=workspace, url=url, secret=SECRET, events=list(events), threshold=threshold
    )


def test_job_completed_is_signed_and_logged(workspace, run_job):
    with Receiver() as receiver:
        _hook(workspace, receiver.url)
        job = run_job(workspace)
    [request] = receiver.requests
    headers, body = request["headers"], request["body"]
    expected = hmac.new(
        SECRET.encode(), headers["X-Spanproof-Timestamp"].encode() + b"." + body, hashlib.sha256
    ).hexdigest()
    assert headers[SIGNATURE_HEADER] == f"sha256={expected}"
    assert headers["X-Spanproof-Event"] == "job.completed"
    payload = json.loads(body)
    assert payload["job"]["id"] == job.pk and payload["job"]["status"] == "succeeded"
    assert payload["report"]["trust"]["score"] == job.quality_report["trust"]["score"]
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "delivered" and delivery.delivered_at
    assert list(delivery.attempts.values_list("number", "status_code")) == [(1, 200)]


def test_retries_with_backoff_until_delivered(workspace, run_job, monkeypatch):
    with Receiver(statuses=[500, 503]) as receiver:
        _hook(workspace, receiver.url)
        run_job(workspace)
    assert len(receiver.requests) == 3
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "delivered"
    attempts = list(
        delivery.attempts.order_by("number").values_list("number", "status_code", "error")
    )
    assert attempts == [(1, 500, "HTTP 500"), (2, 503, "HTTP 503"), (3, 200, "")]
    assert [retry_delay(n) for n in (1, 2, 3)] == [10, 20, 40]


def test_gives_up_after_max_attempts_and_logs_each(workspace, run_job):
    with Receiver(statuses=[500] * 10) as receiver:
        _hook(workspace, receiver.url)
        run_job(workspace)
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "failed" and delivery.delivered_at is None
    assert delivery.attempts.count() == MAX_ATTEMPTS == len(receiver.requests)


def test_unreachable_receiver_records_the_error(workspace, run_job):
    with Receiver() as receiver:
        url = receiver.url
    _hook(workspace, url)  # server closed: connection refused
    run_job(workspace)
    attempt = WebhookAttempt.objects.order_by("number").first()
    assert attempt.status_code is None and "ConnectionError" in attempt.error


def test_quality_below_threshold_fires_only_under_the_threshold(workspace, run_job):
    with Receiver() as receiver:
        _hook(workspace, receiver.url, events=["job.quality_below_threshold"], threshold=101 - 1)
        _hook(workspace, receiver.url, events=["job.quality_below_threshold"], threshold=0)
        job = run_job(workspace)
    assert job.quality_report["trust"]["score"] < 100
    [request] = receiver.requests
    assert request["headers"]["X-Spanproof-Event"] == "job.quality_below_threshold"
    assert json.loads(request["body"])["threshold"] == 100


def test_delivery_waits_for_commit(workspace, django_capture_on_commit_callbacks):
    from verifier.services.ingest import STAGE_ORDER, ingest_stage_run

    with Receiver() as receiver:
        _hook(workspace, receiver.url)
        job = ingest_job_create(
            workspace=workspace,
            sources=[SourceUpload(ref="source:a", text="The delta gains land in wet years.")],
            start=False,
        )
        for stage in STAGE_ORDER[:-1]:
            ingest_stage_run(job_id=job.pk, stage=stage)
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            ingest_stage_run(job_id=job.pk, stage="store")
        assert WebhookDelivery.objects.get().status == "pending"
        assert receiver.requests == []  # nothing sent inside the transaction
        for callback in callbacks:
            callback()
        assert len(receiver.requests) == 1
    # a redelivered store task sends nothing twice
    ingest_stage_run(job_id=job.pk, stage="store")
    assert WebhookDelivery.objects.count() == 1


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({"events": []}, "invalid_events"),
        ({"events": ["job.exploded"]}, "invalid_events"),
        ({"url": "ftp://x"}, "insecure_url"),
        ({"url": "file:///etc/passwd"}, "insecure_url"),
        ({"secret": "short"}, "weak_secret"),
        ({"threshold": 101}, "invalid_threshold"),
    ],
)
def test_webhook_input_is_validated(workspace, kwargs, code):
    values = {"url": "http://127.0.0.1:9/h", "secret": SECRET, "events": ["job.completed"]}
    with pytest.raises(WebhookInputError) as err:
        webhooks.webhook_create(workspace=workspace, **{**values, **kwargs})
    assert err.value.code == code
