"""The webhooks page's list: each webhook with how its latest delivery went
(``verifier.selectors.webhooks.webhook_list``) and, for that delivery, how many tries it
took and what the last one met, so an admin reads why a delivery failed."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery

from verifier.models import Webhook, WebhookAttempt, WebhookDelivery, Workspace
from verifier.selectors.webhooks import webhook_list


def webhook_page_list(*, workspace: Workspace) -> QuerySet[Webhook]:
    """:func:`webhook_list` with ``last_attempts`` (tries of the latest delivery, 0 when
    none yet) and ``last_error`` (what its last try met; '' when it succeeded)."""
    latest = WebhookDelivery.objects.filter(webhook=OuterRef("pk")).order_by("-id")
    attempts = WebhookAttempt.objects.filter(delivery_id=OuterRef("last_delivery_id"))
    return webhook_list(workspace=workspace).annotate(
        last_delivery_id=Subquery(latest.values("pk")[:1]),
        last_attempts=Subquery(
            attempts.order_by().values("delivery_id").annotate(n=Count("pk")).values("n")[:1],
            output_field=IntegerField(),
        ),
        last_error=Subquery(attempts.order_by("-number", "-pk").values("error")[:1]),
    )
