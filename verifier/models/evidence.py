from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.claims import Claim
from verifier.models.sources import SourceVersion


class MatchKind(models.TextChoices):
    EXACT = "exact", "Exact"
    NORMALIZED = "normalized", "Normalized"
    FUZZY = "fuzzy", "Fuzzy"


class BoundBy(models.TextChoices):
    QUOTE = "quote", "Submitted quote"
    EVIDENCE_SEARCH = "evidence_search", "Evidence search"
    REVIEWER = "reviewer", "Reviewer selection"
    REMEDIATION = "remediation", "Remediation"


class EvidenceBinding(models.Model):
    """A quote bound to half-open code-point offsets [start, end) in one source version."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="bindings")
    source_version = models.ForeignKey(
        SourceVersion, on_delete=models.PROTECT, related_name="bindings"
    )
    quote = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    source_hash = models.CharField(max_length=64)
    match = models.CharField(max_length=16, choices=MatchKind.choices)
    score = models.FloatField(default=1.0)
    occurrences = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="How many times a bound quote occurs in the version the way it matched "
        "(exact, or normalized), counted up to 100; the first one is bound. Null for a "
        "fuzzy match, evidence search, a reviewer's selection, and older bindings.",
    )
    bound_by = models.CharField(max_length=20, choices=BoundBy.choices)
    bound_by_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__gte=0) & models.Q(start__lt=models.F("end")),
                name="binding_offsets_ordered",
            ),
            models.CheckConstraint(
                condition=models.Q(match__in=[m.value for m in MatchKind]),
                name="binding_match_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(score__gte=0) & models.Q(score__lte=1),
                name="binding_score_range",
            ),
            models.UniqueConstraint(
                fields=["claim"],
                condition=models.Q(is_active=True),
                name="binding_one_active_per_claim",
            ),
        ]
        indexes = [models.Index(fields=["source_version", "start"], name="binding_version_start")]

    def __str__(self) -> str:
        return f"{self.claim_id} [{self.start}, {self.end}) {self.match}"


class EvidenceCandidate(models.Model):
    """A runner-up span from evidence search, kept for reviewers."""

    claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="candidates")
    source_version = models.ForeignKey(
        SourceVersion, on_delete=models.CASCADE, related_name="candidates"
    )
    quote = models.TextField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    score = models.FloatField()
    rank = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["claim_id", "rank"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start__gte=0) & models.Q(start__lt=models.F("end")),
                name="candidate_offsets_ordered",
            ),
        ]
