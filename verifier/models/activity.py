"""The workspace's activity log: who changed who may do what (members, API keys,
webhooks) and how claims are decided (rule sets, reviewer calibrators), and when.

Append-only: a trigger refuses UPDATE (migration 0033); rows go only with their workspace.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from verifier.models.workspaces import Workspace


class ActivityAction(models.TextChoices):
    MEMBER_ADDED = "member_added", "Member added"
    MEMBER_ROLE_CHANGED = "member_role_changed", "Role changed"
    MEMBER_REMOVED = "member_removed", "Member taken out"
    API_KEY_CREATED = "api_key_created", "API key made"
    API_KEY_REVOKED = "api_key_revoked", "API key revoked"
    WEBHOOK_CREATED = "webhook_created", "Webhook added"
    WEBHOOK_TURNED_OFF = "webhook_turned_off", "Webhook turned off"
    RULE_SET_SAVED = "rule_set_saved", "Rule set saved"
    RULE_SET_ACTIVATED = "rule_set_activated", "Rule set put in force"
    CALIBRATOR_ACTIVATED = "calibrator_activated", "Calibrator activated"
    CALIBRATOR_DEACTIVATED = "calibrator_deactivated", "Calibrator deactivated"


class WorkspaceEvent(models.Model):
    """One change, with who made it (``actor``: the caller as a trace records it,
    ``verifier.trace_caller``; null from a command or a task), what it was about
    (``target``, as it read then) and its particulars (``details``)."""

    # No index of its own: ``wsevent_ws_created`` leads with the workspace.
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="events", db_index=False
    )
    created_at = models.DateTimeField(default=timezone.now)
    action = models.CharField(max_length=32, choices=ActivityAction.choices)
    actor = models.JSONField(null=True, blank=True)
    target = models.CharField(max_length=200)
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["workspace", "-created_at", "-id"], name="wsevent_ws_created")
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(action__in=[a.value for a in ActivityAction]),
                name="wsevent_action_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.target}"
