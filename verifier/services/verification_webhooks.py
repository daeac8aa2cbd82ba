"""``verification.completed``: a finished background verification job, announced to the
workspace's webhooks that subscribe to it (signed and retried like every delivery)."""

from __future__ import annotations

from collections import Counter

from django.db import transaction

from verifier.models import (
    Claim,
    VerificationJob,
    Webhook,
    WebhookDelivery,
    WebhookEvent,
)


def verification_webhooks_queue(*, job: VerificationJob) -> list[WebhookDelivery]:
    """Create one delivery per subscribed webhook; each is sent after commit."""
    from verifier.pipeline.webhooks import deliver_webhook

    event = WebhookEvent.VERIFICATION_COMPLETED.value
    webhooks = [
        w
        for w in Webhook.objects.filter(workspace=job.workspace, is_active=True)
        if event in (w.events or [])
    ]
    if not webhooks:
        return []
    claim_ids = [i["claim_id"] for i in job.items if i.get("claim_id")]
    states = Counter(
        Claim.objects.filter(workspace=job.workspace, public_id__in=claim_ids).values_list(
            "state", flat=True
        )
    )
    payload = {
        "event": event,
        "verification_job": {
            "id": job.pk,
            "status": job.status,
            "claims": len(job.items),
            "verified": job.done,
            "errors": sum(1 for i in job.items if i.get("error")),
            "states": dict(sorted(states.items())),
            "results": f"/connect/v1/claims/verify/jobs/{job.pk}",
        },
    }
    deliveries = [
        WebhookDelivery.objects.create(webhook=w, event=event, payload=payload) for w in webhooks
    ]
    for delivery in deliveries:
        transaction.on_commit(lambda pk=delivery.pk: deliver_webhook.delay(pk))
    return deliveries
