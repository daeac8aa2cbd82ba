"""A webhook registered twice for the same target (URL, events, threshold) would deliver
every event twice: the second registration is a 409 ``webhook_exists``, whichever door,
and two registrations at once store one webhook."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from tests.verifier.api.conftest import client_for
from verifier.models import Webhook
from verifier.services.webhooks import WebhookExists, webhook_create, webhook_turn_off

SECRET = "s3cret-for-webhook-tests"
URL = "http://127.0.0.1:9/spanproof"  # allowed in these tests (conftest); never called


def _create(workspace, url=URL, events=("job.completed",), threshold=90):
    return webhook_create(
        workspace=workspace, url=url, secret=SECRET, events=list(events), threshold=threshold
    )


@pytest.mark.django_db
def test_the_same_target_twice_is_refused_and_names_the_active_one(workspace):
    first = _create(workspace)
    with pytest.raises(WebhookExists) as refused:
        _create(workspace, events=["job.completed", "job.completed"])  # the same set
    assert refused.value.status_code == 409
    assert refused.value.details == {"field": "url", "webhook_id": first.pk}
    assert f"(id {first.pk})" in refused.value.message
    assert Webhook.objects.filter(workspace=workspace).count() == 1
    # another event set or threshold is another target; a turned-off one frees its own
    _create(workspace, events=["job.quality_below_threshold"])
    _create(workspace, threshold=50)
    webhook_turn_off(webhook=first)
    again = _create(workspace)
    assert again.is_active and Webhook.objects.filter(workspace=workspace).count() == 4


@pytest.mark.django_db
def test_the_api_answers_409_and_the_console_a_form_error(workspace, admin_client_ws):
    body = {"url": URL, "secret": SECRET, "events": ["job.completed"]}
    api = client_for(workspace)
    first = api.post("/connect/v1/webhooks", body, content_type="application/json")
    assert first.status_code == 201
    second = api.post("/connect/v1/webhooks", body, content_type="application/json")
    assert second.status_code == 409
    assert second.json()["error"]["code"] == "webhook_exists"
    form = {"url": URL, "secret": SECRET, "events": ["job.completed"], "threshold": 90}
    page = admin_client_ws.post("/audit/webhooks/new/", form)
    assert page.status_code == 422
    assert "already sends these events to this URL" in page.content.decode()
    assert Webhook.objects.filter(workspace=workspace).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_registrations_at_once_store_one_webhook(workspace):
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def register() -> None:
        barrier.wait()
        try:
            _create(workspace)
            outcomes.append("created")
        except WebhookExists:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=register) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created", "refused"]
    assert Webhook.objects.filter(workspace=workspace, is_active=True).count() == 1
