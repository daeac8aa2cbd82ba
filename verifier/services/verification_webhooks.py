"""``verification.completed``: a finished background verification job, announced to the
workspace's webhooks that subscribe to it (signed and retried like every delivery)."""

from __future__ import annotations

from verifier.models import (
    VerificationJob,
    Webhook,
    WebhookDelivery,
    WebhookEvent,
)
from verifier.selectors.claim_verification import verification_job_summary
from verifier.services.enqueue import DELIVER_WEBHOOK, task_enqueue_on_commit


def verification_webhooks_queue(*, job: VerificationJob) -> list[WebhookDelivery]:
    """Create one delivery per subscribed webhook; each is sent after commit."""
    event = WebhookEvent.VERIFICATION_COMPLETED.value
    webhooks = [
        w
        for w in Webhook.objects.filter(workspace=job.workspace, is_active=True)
        if event in (w.events or [])
    ]
    if not webhooks:
        return []
    summary = verification_job_summary(job=job)
    payload = {
        "event": event,
        "verification_job": {
            "id": job.pk,
            "status": job.status,
            "claims": summary["claims"],
            "verified": job.done,
            "errors": summary["errors"],
            "states": summary["states"],
            "results": f"/connect/v1/claims/verify/jobs/{job.pk}",
        },
    }
    deliveries = [
        WebhookDelivery.objects.create(webhook=w, event=event, payload=payload) for w in webhooks
    ]
    for delivery in deliveries:
        task_enqueue_on_commit(DELIVER_WEBHOOK, delivery.pk)
    return deliveries
