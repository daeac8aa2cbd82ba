"""Webhooks: ``job.completed`` and ``job.quality_below_threshold``.

A delivery row is created per (webhook, event) inside the store stage's transaction
and sent by its own task after commit. Each try appends a ``WebhookAttempt`` (status
code or error); a 2xx ends it as ``delivered``, anything else is retried with
exponential backoff (``RETRY_BASE_SECONDS`` × 2^(try − 1)) up to ``MAX_ATTEMPTS``, then
the delivery is ``failed``.

The body is the JSON payload serialised canonically (sorted keys, no spaces). Headers:
``X-Spanproof-Event``, ``X-Spanproof-Delivery`` (delivery id), ``X-Spanproof-Timestamp``
(Unix seconds) and ``X-Spanproof-Signature: sha256=<hex>``, the HMAC-SHA256 with the
webhook's secret over ``<timestamp>.<body>`` — a receiver recomputes it and rejects
stale timestamps to stop replays.

The target is checked when the webhook is registered and again at every try
(``webhook_transport``): https only (unless ``SPANPROOF_WEBHOOK_ALLOW_HTTP``), no
loopback, private, link-local, metadata or other non-public addresses (unless
``SPANPROOF_WEBHOOK_ALLOWED_NETWORKS`` names them), no redirects followed. A try refused
by that check ends the delivery as ``failed`` at once: it is not a transient failure.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from verifier.errors import ApplicationError
from verifier.models import (
    ActivityAction,
    IngestJob,
    Webhook,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    Workspace,
)
from verifier.services.activity import activity_record, url_shown
from verifier.services.enqueue import DELIVER_WEBHOOK, task_enqueue_on_commit
from verifier.services.webhook_transport import (
    WebhookTargetRefused,
    webhook_post,
    webhook_target_check,
)

MAX_ATTEMPTS: Final = 5
RETRY_BASE_SECONDS: Final = 10
TIMEOUT_SECONDS: Final = 10
SIGNATURE_HEADER: Final = "X-Spanproof-Signature"
ERROR_MAX_CHARS: Final = 500


class WebhookInputError(ApplicationError, ValueError):
    """A webhook registration that is refused (the API answers 400)."""


class WebhookExists(WebhookInputError):
    """The same target (URL, events, threshold) is already registered and active: a
    second would deliver every event twice (409 ``webhook_exists``)."""

    status_code = 409


def canonical_body(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str).encode()


def sign(secret: str, timestamp: str, body: bytes) -> str:
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def retry_delay(attempt: int) -> int:
    """Seconds to wait after failed try number ``attempt`` (1-based)."""
    delay: int = RETRY_BASE_SECONDS * 2 ** (attempt - 1)
    return delay


@transaction.atomic
def webhook_create(
    *, workspace: Workspace, url: str, secret: str, events: list[str], threshold: int = 90
) -> Webhook:
    allowed = {e.value for e in WebhookEvent}
    unknown = sorted(set(events) - allowed)
    if not events or unknown:
        raise WebhookInputError(
            "invalid_events", f"events must be a non-empty subset of {sorted(allowed)}."
        )
    if len(secret) < 16:
        raise WebhookInputError("weak_secret", "The secret needs at least 16 characters.")
    if secret != secret.strip():
        # Trimmed, it would sign every delivery with other bytes than the receiver's copy.
        raise WebhookInputError(
            "invalid_secret",
            "The secret begins or ends with a blank (a space, a tab or a line break): "
            "remove it, so that the receiver's copy is exactly the secret that signs.",
            {"field": "secret"},
        )
    if not 0 <= threshold <= 100:
        raise WebhookInputError("invalid_threshold", "threshold is a trust score 0–100.")
    try:
        webhook_target_check(url=url)
    except WebhookTargetRefused as exc:
        raise WebhookInputError(exc.code, exc.message, {"field": "url"}) from exc
    events = sorted(set(events))
    try:
        with transaction.atomic():
            webhook = Webhook.objects.create(
                workspace=workspace, url=url, secret=secret, events=events, threshold=threshold
            )
    except IntegrityError:  # ``webhook_one_active_per_target``: registered already
        twin = Webhook.objects.filter(
            workspace=workspace, url=url, events=events, threshold=threshold, is_active=True
        ).first()
        raise WebhookExists(
            "webhook_exists",
            f"An active webhook{f' (id {twin.pk})' if twin else ''} already sends these "
            "events to this URL at this threshold: turn it off first, or choose other events "
            "or another threshold.",
            {"field": "url", "webhook_id": twin.pk if twin else None},
        ) from None
    activity_record(
        workspace=workspace,
        action=ActivityAction.WEBHOOK_CREATED,
        target=url_shown(url),
        details={"webhook_id": webhook.pk, "events": webhook.events, "threshold": threshold},
    )
    return webhook


# Deliveries not finished: queued for a first try, or waiting for a retry.
WAITING_STATUSES: Final = ("pending", "retrying")


@transaction.atomic
def webhook_turn_off(*, webhook: Webhook) -> Webhook:
    """Stop the webhook: no new delivery is queued for it, and the ones still waiting
    (pending or retrying) read ``cancelled`` at once, in the same transaction
    (``webhook_deliver`` sends nothing for a webhook turned off, so a queued try ends
    there). Its row and its deliveries stay, as the record of what was sent. Turning off
    twice is harmless."""
    turned_off = Webhook.objects.filter(pk=webhook.pk, is_active=True).update(is_active=False)
    cancelled = WebhookDelivery.objects.filter(webhook=webhook, status__in=WAITING_STATUSES).update(
        status="cancelled"
    )
    if turned_off:
        activity_record(
            workspace=webhook.workspace,
            action=ActivityAction.WEBHOOK_TURNED_OFF,
            target=url_shown(webhook.url),
            details={"webhook_id": webhook.pk, "deliveries_cancelled": cancelled},
        )
    webhook.is_active = False
    return webhook


def quality_failures(report: dict[str, Any], threshold: int) -> list[dict[str, str]]:
    """Why a job's quality report is a quality failure for a webhook at ``threshold``:
    its trust score is below the threshold (``trust_below_threshold``), and/or it failed
    the G2 gate (``g2_failed``, seed 000: "quality failures are pushed to you"). Empty for
    a job that added no claims (re-ingesting identical text): it has nothing to score."""
    if not report.get("claims"):
        return []
    failures = []
    trust = (report.get("trust") or {}).get("score")
    if trust is not None and trust < threshold:
        failures.append(
            {
                "code": "trust_below_threshold",
                "message": f"The trust score {trust} is below the threshold {threshold}.",
            }
        )
    g2 = (report.get("quality") or {}).get("g2") or {}
    if g2.get("passed") is False:
        shortfalls = "; ".join(str(s) for s in g2.get("shortfalls") or []) or "not met"
        failures.append({"code": "g2_failed", "message": f"The G2 gate failed: {shortfalls}."})
    return failures


def _events_for(webhook: Webhook, failures: list[dict[str, str]]) -> list[str]:
    events = []
    if WebhookEvent.JOB_COMPLETED in webhook.events:
        events.append(WebhookEvent.JOB_COMPLETED.value)
    if WebhookEvent.JOB_QUALITY_BELOW_THRESHOLD in webhook.events and failures:
        events.append(WebhookEvent.JOB_QUALITY_BELOW_THRESHOLD.value)
    return events


def webhook_deliveries_queue(*, job: IngestJob, report: dict[str, Any]) -> list[WebhookDelivery]:
    """Create the job's deliveries and send each in its own task after commit.

    ``job.quality_below_threshold`` fires when the job's report is a quality failure
    (:func:`quality_failures`: its trust score is below the webhook's threshold, or it
    failed G2); its payload's ``quality_failures`` says which."""
    deliveries = []
    for webhook in Webhook.objects.filter(workspace=job.workspace, is_active=True):
        failures = quality_failures(report, webhook.threshold)
        for event in _events_for(webhook, failures):
            payload = {
                "event": event,
                "job": {
                    "id": job.pk,
                    "label": job.label,
                    "status": job.status,
                    "warnings": job.warnings,
                },
                "threshold": webhook.threshold,
                "report": report,
            }
            if event == WebhookEvent.JOB_QUALITY_BELOW_THRESHOLD:
                payload["quality_failures"] = failures
            deliveries.append(
                WebhookDelivery.objects.create(webhook=webhook, event=event, payload=payload)
            )
    for delivery in deliveries:
        task_enqueue_on_commit(DELIVER_WEBHOOK, delivery.pk)
    return deliveries


@dataclass(frozen=True)
class AttemptResult:
    delivered: bool
    retry_in: int | None  # seconds until the next try, None when finished
    attempt: int


def webhook_deliver(*, delivery_id: int) -> AttemptResult:
    """Make one try; record it; say whether and when to try again."""
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    number = delivery.attempts.count() + 1
    if delivery.status in ("delivered", "failed", "cancelled"):
        return AttemptResult(delivery.status == "delivered", None, number - 1)
    if not delivery.webhook.is_active:
        WebhookDelivery.objects.filter(pk=delivery.pk).update(status="cancelled")
        return AttemptResult(False, None, number - 1)
    body = canonical_body(delivery.payload)
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Spanproof-Webhooks/1",
        "X-Spanproof-Event": delivery.event,
        "X-Spanproof-Delivery": str(delivery.pk),
        "X-Spanproof-Timestamp": timestamp,
        SIGNATURE_HEADER: sign(delivery.webhook.secret, timestamp, body),
    }
    timeout = float(getattr(settings, "SPANPROOF_WEBHOOK_TIMEOUT", TIMEOUT_SECONDS))
    result = webhook_post(url=delivery.webhook.url, body=body, headers=headers, timeout=timeout)
    status_code, error = result.status_code, result.error[:ERROR_MAX_CHARS]
    if status_code is not None and not 200 <= status_code < 300:
        error = f"HTTP {status_code}"
    delivered = status_code is not None and 200 <= status_code < 300
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, number=number, status_code=status_code, error=error
        )
        if delivered:
            status, retry_in = "delivered", None
        elif number >= MAX_ATTEMPTS or result.refused:
            status, retry_in = "failed", None
        else:
            status, retry_in = "retrying", retry_delay(number)
        row = WebhookDelivery.objects.filter(pk=delivery.pk)
        if not delivered:
            # turned off while this try was on its way: it stays cancelled
            row = row.exclude(status="cancelled")
        if not row.update(status=status, delivered_at=timezone.now() if delivered else None):
            return AttemptResult(False, None, number)
    return AttemptResult(delivered, retry_in, number)
