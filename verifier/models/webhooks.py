from __future__ import annotations

from django.db import models

from verifier.models.workspaces import Workspace


class WebhookEvent(models.TextChoices):
    JOB_COMPLETED = "job.completed", "job.completed"
    JOB_QUALITY_BELOW_THRESHOLD = "job.quality_below_threshold", "job.quality_below_threshold"
    VERIFICATION_COMPLETED = "verification.completed", "verification.completed"


class Webhook(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=128)
    events = models.JSONField(default=list)
    threshold = models.PositiveSmallIntegerField(
        default=90,
        help_text=(
            "job.quality_below_threshold fires when the trust score is below, or the job "
            "failed the G2 gate."
        ),
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            # One active webhook per target: the same URL, events and threshold twice
            # would deliver every event twice (a retried or concurrent registration).
            models.UniqueConstraint(
                fields=["workspace", "url", "events", "threshold"],
                condition=models.Q(is_active=True),
                name="webhook_one_active_per_target",
            )
        ]

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=64)
    payload = models.JSONField()
    status = models.CharField(max_length=16, default="pending")
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)
