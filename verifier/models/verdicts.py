"""Append-only history: verdicts and state events. Triggers reject UPDATE and DELETE."""

from __future__ import annotations

from typing import Any, Final, Self

from django.conf import settings
from django.db import models

from verifier.models.claims import Claim, ClaimStateChoices
from verifier.models.evidence import EvidenceBinding


class VerdictLabel(models.TextChoices):
    ENTAILED = "entailed", "Entailed"
    CONTRADICTED = "contradicted", "Contradicted"
    ABSTAINED = "abstained", "Abstained"
    COVERAGE_GAP = "coverage_gap", "Coverage gap"
    # A reviewer took back their own decision (review "undo"): appended, never a delete;
    # the decision before it applies again (``verifier.states.human_verdict_in_force``).
    WITHDRAWN = "withdrawn", "Withdrawn"
    # A reviewer found that the source does not state the claim, nor its opposite
    # (``verifier.states.NOT_STATED``): a person's answer, never a judge's.
    NOT_STATED = "not_stated", "Not stated"


HUMAN_JUDGE_FAMILY = "human"

# "Latest" in a claim's history: the newest row, the later insert when two share ``at``.
# Every reader orders verdicts (and state events) this way; the index
# ``verdict_claim_latest`` serves it. Raw SQL writes it as ``ORDER BY at DESC, id DESC``.
LATEST_FIRST: Final = ("-at", "-id")


class ClaimHistoryQuerySet(models.QuerySet[Any]):
    """Rows of a claim's append-only history (verdicts, state events), read newest first."""

    def latest_first(self) -> Self:
        """Newest first: ``qs.latest_first().first()`` is the latest row."""
        return self.order_by(*LATEST_FIRST)

    def latest_first_by_claim(self) -> Self:
        """Grouped by claim, newest first within each claim."""
        return self.order_by("claim_id", *LATEST_FIRST)

    def latest_per_claim(self) -> Self:
        """Each claim's latest row only (``DISTINCT ON (claim_id)``)."""
        return self.latest_first_by_claim().distinct("claim_id")


class Verdict(models.Model):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="verdicts")
    binding = models.ForeignKey(
        EvidenceBinding, on_delete=models.PROTECT, null=True, blank=True, related_name="verdicts"
    )
    judge_model = models.CharField(max_length=200)
    judge_family = models.CharField(max_length=100)
    prompt_version = models.PositiveIntegerField(default=1)
    label = models.CharField(max_length=16, choices=VerdictLabel.choices)
    confidence = models.FloatField()
    note = models.TextField(blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="verdicts",
        help_text="Set when the judge is a person.",
    )
    calibrator = models.ForeignKey(
        "verifier.JudgeCalibrator",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="verdicts",
        help_text="Set when the workspace's reviewer calibrator gave this answer "
        "(judge_model is the judge it calibrates).",
    )
    # A reviewer's decision that bound the span they selected (``binding`` is that span)
    # records the binding it replaced as the claim's evidence (none: nothing was bound):
    # undoing the decision (``review.services.review_undo``) makes that one active again.
    bound_selection = models.BooleanField(default=False, db_default=False)
    # No index: nothing looks verdicts up by it, and bindings are never deleted.
    binding_before = models.ForeignKey(
        EvidenceBinding,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    at = models.DateTimeField(auto_now_add=True)

    objects = ClaimHistoryQuerySet.as_manager()

    class Meta:
        ordering = list(LATEST_FIRST)
        get_latest_by = "at"
        # A claim's latest verdict (by -at, -id, as every reader orders them) is the
        # first entry for the claim: no sort of its verdicts (migration 0021).
        # People's decisions of a span of time, newest first (the Decisions page's day):
        # read from the reviewers' verdicts alone, not every verdict the judges wrote.
        indexes = [
            models.Index(fields=["claim", *LATEST_FIRST], name="verdict_claim_latest"),
            models.Index(
                fields=list(LATEST_FIRST),
                name="verdict_human_latest",
                condition=models.Q(reviewer__isnull=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="verdict_confidence_range",
            ),
            models.CheckConstraint(
                condition=models.Q(label__in=[v.value for v in VerdictLabel]),
                name="verdict_label_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.claim_id}: {self.label} ({self.confidence:.2f}) by {self.judge_model}"

    @property
    def is_human(self) -> bool:
        return self.reviewer_id is not None


class StateEvent(models.Model):
    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="state_events")
    from_state = models.CharField(max_length=16, choices=ClaimStateChoices.choices, blank=True)
    to_state = models.CharField(max_length=16, choices=ClaimStateChoices.choices)
    reason = models.CharField(max_length=40, blank=True)
    cause = models.CharField(max_length=200)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    at = models.DateTimeField(auto_now_add=True)

    objects = ClaimHistoryQuerySet.as_manager()

    class Meta:
        ordering = list(LATEST_FIRST)
        indexes = [models.Index(fields=["claim", "-at"], name="stateevent_claim_at")]

    def __str__(self) -> str:
        return f"{self.claim_id}: {self.from_state or '∅'} → {self.to_state} ({self.cause})"
