"""DELETE /connect/v1/webhooks/{id} turns a webhook off: its waiting deliveries (pending
and retrying) read ``cancelled`` at once, not when their next retry fires, hours later;
finished ones keep what happened to them."""

from __future__ import annotations

import pytest

from verifier.models import Webhook, WebhookDelivery

pytestmark = pytest.mark.django_db


def test_turning_a_webhook_off_cancels_its_waiting_deliveries_at_once(api, workspace):
    webhook = Webhook.objects.create(
        workspace=workspace,
        url="https://93.184.216.40/vc",
        secret="0123456789abcdef",
        events=["verification.completed"],
    )
    statuses = ["pending", "retrying", "delivered", "failed"]
    rows = [
        WebhookDelivery.objects.create(
            webhook=webhook, event="verification.completed", payload={}, status=status
        )
        for status in statuses
    ]
    response = api.delete(f"/connect/v1/webhooks/{webhook.pk}")
    assert response.status_code == 200 and response.json()["is_active"] is False
    now = [WebhookDelivery.objects.get(pk=row.pk).status for row in rows]
    assert now == ["cancelled", "cancelled", "delivered", "failed"]
    listed = api.get("/connect/v1/webhooks").json()["results"]
    assert listed[0]["last_status"] in ("cancelled", "delivered", "failed")
    assert api.delete(f"/connect/v1/webhooks/{webhook.pk}").status_code == 200
