"""Webhooks through the API: listed (newest first, how the latest delivery went, never
the secret), read, and turned off with DELETE, which stops new and waiting deliveries
and keeps the record. Admin scope only; another workspace's webhook is a 404. A real
receiver on 127.0.0.1, the real database and the real ingest chain."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.pipeline.receiver import Receiver
from verifier.models import Webhook, WebhookDelivery
from verifier.services.webhooks import webhook_create, webhook_deliver

SECRET = "s3cret-for-webhook-tests"
HOOKS = "/connect/v1/webhooks"


def _hook(workspace, url):
    return webhook_create(workspace=workspace, url=url, secret=SECRET, events=["job.completed"])


@pytest.mark.django_db
def test_the_list_is_newest_first_with_the_latest_delivery_and_no_secret(workspace, run_job):
    with Receiver() as receiver:
        first = _hook(workspace, receiver.url)
        run_job(workspace)
        second = _hook(workspace, receiver.url + "/two")
    body = client_for(workspace, "admin").get(HOOKS).json()
    rows = body["results"]
    assert [r["id"] for r in rows] == [second.pk, first.pk]
    assert rows[0]["last_status"] is None and rows[1]["last_status"] == "delivered"
    assert all("secret" not in r for r in rows) and SECRET not in str(body)
    assert body["next"] is None


@pytest.mark.django_db
def test_delete_turns_a_webhook_off_and_cancels_what_waits(workspace, run_job):
    with Receiver() as receiver:
        hook = _hook(workspace, receiver.url)
        # a delivery queued and not yet tried (its task waits in the broker)
        delivery = WebhookDelivery.objects.create(
            webhook=hook, event="job.completed", payload={"job": {"id": 1}}
        )
        api = client_for(workspace, "admin")
        response = api.delete(f"{HOOKS}/{hook.pk}")
        assert response.status_code == 200 and response.json()["is_active"] is False
        assert api.delete(f"{HOOKS}/{hook.pk}").status_code == 200, "twice is harmless"
        sent = len(receiver.requests)
        result = webhook_deliver(delivery_id=delivery.pk)
        assert not result.delivered and result.retry_in is None
        assert len(receiver.requests) == sent, "nothing is sent for a webhook turned off"
        delivery.refresh_from_db()
        assert delivery.status == "cancelled"
        run_job(workspace, docs={"source:other": "Silt settles in the outer bay."})
    assert WebhookDelivery.objects.count() == 1, "no new delivery is queued"
    assert Webhook.objects.filter(pk=hook.pk, is_active=False).exists()


@pytest.mark.django_db
@pytest.mark.parametrize("scope", ["read", "write"])
def test_webhooks_need_the_admin_scope(workspace, scope):
    hook = _hook(workspace, "http://127.0.0.1:9/h")
    api = client_for(workspace, scope)
    assert api.get(HOOKS).status_code == 403
    assert api.get(f"{HOOKS}/{hook.pk}").status_code == 403
    assert api.delete(f"{HOOKS}/{hook.pk}").status_code == 403
    assert Webhook.objects.get(pk=hook.pk).is_active


@pytest.mark.django_db
def test_another_workspaces_webhook_is_a_404(workspace, other_workspace):
    theirs = _hook(other_workspace, "http://127.0.0.1:9/h")
    api = client_for(workspace, "admin")
    for response in (api.get(f"{HOOKS}/{theirs.pk}"), api.delete(f"{HOOKS}/{theirs.pk}")):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert api.get(HOOKS).json()["results"] == []
    assert Webhook.objects.get(pk=theirs.pk).is_active


@pytest.mark.django_db
def test_a_missing_object_is_a_404_that_says_what_is_missing(workspace):
    api = client_for(workspace, "admin")
    webhook = api.get(f"{HOOKS}/999999").json()["error"]
    assert webhook == {"code": "not_found", "message": "No such webhook.", "details": {}}
    job = api.get("/connect/v1/ingest-jobs/999999").json()["error"]
    assert job["message"] == "No such ingest job."
    claim = api.get("/connect/v1/claims/claim:nosuchclaim").json()["error"]
    assert claim["code"] == "not_found" and claim["message"] != "Not found."
    assert "matches the given query" not in claim["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("secret", ["  " + SECRET, SECRET + "\n"])
def test_a_secret_with_outer_blanks_is_refused_not_trimmed(workspace, secret):
    """The API kept the secret trimmed: every delivery would have been signed with other
    bytes than the receiver's copy. It is refused, as in the console, naming the field."""
    body = {"url": "https://hooks.example.com/in", "secret": secret, "events": ["job.completed"]}
    response = client_for(workspace, "admin").post(HOOKS, body, format="json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_secret" and error["details"]["field"] == "secret"
    assert not Webhook.objects.exists()
