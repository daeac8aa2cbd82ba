"""Reads of a workspace's webhooks: the list (newest first) with how their latest
delivery went, and one webhook by id (the same 404 for missing and other-workspace)."""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery
from django.http import Http404

from verifier.models import Webhook, WebhookDelivery, Workspace


def webhook_list(*, workspace: Workspace) -> QuerySet[Webhook]:
    """The workspace's webhooks, each with ``last_status`` and ``last_event_at`` of its
    latest delivery (None when it has had none)."""
    latest = WebhookDelivery.objects.filter(webhook=OuterRef("pk")).order_by("-id")
    return (
        Webhook.objects.filter(workspace=workspace)
        .annotate(
            last_status=Subquery(latest.values("status")[:1]),
            last_event_at=Subquery(latest.values("created_at")[:1]),
        )
        .order_by("-id")
    )


def webhook_get(*, workspace: Workspace, webhook_id: int) -> Webhook:
    webhook = Webhook.objects.filter(workspace=workspace, pk=webhook_id).first()
    if webhook is None:
        raise Http404("No such webhook.")
    return webhook
