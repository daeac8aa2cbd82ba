from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.claims import Claim
from verifier.models.workspaces import Workspace


class RelationKind(models.TextChoices):
    SUPPORTS = "supports", "Supports"
    CONTRADICTS = "contradicts", "Contradicts"
    ELABORATES = "elaborates", "Elaborates"


class RelationVerification(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    REJECTED = "rejected", "Rejected"


class ClaimRelation(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="relations")
    from_claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="relations_out")
    to_claim = models.ForeignKey(Claim, on_delete=models.CASCADE, related_name="relations_in")
    kind = models.CharField(max_length=16, choices=RelationKind.choices)
    confidence = models.FloatField(default=0.5)
    # Seed 004: a relation feeds graph expansion only once accepted (SR-MKG / VoG / cap).
    verification = models.CharField(
        max_length=10,
        choices=RelationVerification.choices,
        default=RelationVerification.PENDING,
        db_index=True,
    )
    verification_level = models.CharField(max_length=20, blank=True)
    verification_score = models.FloatField(null=True, blank=True)
    needs_review = models.BooleanField(default=False)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["from_claim", "to_claim", "kind"], name="relation_unique_edge"
            ),
            models.CheckConstraint(
                condition=~models.Q(from_claim=models.F("to_claim")), name="relation_no_self_loop"
            ),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1),
                name="relation_confidence_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_claim_id} -{self.kind}-> {self.to_claim_id}"


class Entity(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="entities")
    name = models.CharField(max_length=300)
    normalized_name = models.CharField(max_length=300)
    claims = models.ManyToManyField(Claim, related_name="entities", blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "normalized_name"], name="entity_unique_name"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class EntityRelation(models.Model):
    """Two entities mentioned together by claims; weight counts co-mentions."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE)
    from_entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="edges_out")
    to_entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="edges_in")
    kind = models.CharField(max_length=40, default="co_mentioned")
    weight = models.PositiveIntegerField(default=1)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["from_entity", "to_entity", "kind"], name="entityrelation_unique_edge"
            ),
        ]
