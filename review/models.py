from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.verdicts import LATEST_FIRST, ClaimHistoryQuerySet


class ReviewLease(models.Model):
    """A reviewer's time-limited hold on one claim; at most one per claim."""

    claim = models.OneToOneField(
        "verifier.Claim", on_delete=models.CASCADE, related_name="review_lease"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_leases"
    )
    served_reason = models.CharField(max_length=200)
    leased_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        indexes = [models.Index(fields=["reviewer", "expires_at"], name="reviewlease_reviewer_exp")]

    def __str__(self) -> str:
        return f"{self.claim_id} held by {self.reviewer_id} until {self.expires_at:%H:%M:%S}"


class ReviewNote(models.Model):
    """A reviewer's free-text note on a claim. Append-only; not a decision."""

    claim = models.ForeignKey(
        "verifier.Claim", on_delete=models.CASCADE, related_name="review_notes"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="review_notes"
    )
    text = models.TextField()
    at = models.DateTimeField(auto_now_add=True)

    objects = ClaimHistoryQuerySet.as_manager()

    class Meta:
        ordering = list(LATEST_FIRST)
        indexes = [models.Index(fields=["claim", "-at"], name="reviewnote_claim_at")]

    def __str__(self) -> str:
        return f"{self.claim_id}: note by {self.author_id}"


class ReviewAssignment(models.Model):
    """Who should review a queue item: at most one assignee per claim. Assigning is not
    leasing: anyone may still decide it; "Assigned to me" finds it for the assignee."""

    claim = models.OneToOneField(
        "verifier.Claim", on_delete=models.CASCADE, related_name="review_assignment"
    )
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="review_assignments"
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    assigned_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["assignee"], name="reviewassign_assignee")]

    def __str__(self) -> str:
        return f"{self.claim_id} assigned to {self.assignee_id}"


class ReviewGuidelines(models.Model):
    """The workspace's review guidelines: markdown written by admins, shown beside every
    item. ``html`` is the markdown rendered and sanitized when it was saved
    (``review.guidelines.guidelines_html``), so no page renders it again."""

    workspace = models.OneToOneField(
        "verifier.Workspace", on_delete=models.CASCADE, related_name="review_guidelines"
    )
    text = models.TextField(blank=True)
    html = models.TextField(blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"guidelines of {self.workspace_id}"
