"""Seed 004 relation verification: per-workspace settings, the SR-MKG decision log
(the seed's ``srmkg_decisions``), chunk-prefilter events and versioned calibrations."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from verifier.models.graph import ClaimRelation
from verifier.models.workspaces import Workspace


class RelationVerificationConfig(models.Model):
    """A workspace's overrides of ``verifier.relations.srmkg.VerificationSettings``
    (keys ``srmkg_w_base``, ``srmkg_threshold_accept``, ``vog_max_candidates``, ...).
    A configured 0 is honoured; a missing key falls back to the default."""

    workspace = models.OneToOneField(
        Workspace, on_delete=models.CASCADE, related_name="relation_verification_config"
    )
    values = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"relation verification config of {self.workspace_id}"


class DecisionLevel(models.TextChoices):
    SRMKG_ACCEPT = "srmkg_accept", "SR-MKG accept"
    SRMKG_REJECT = "srmkg_reject", "SR-MKG reject"
    SRMKG_CAP = "srmkg_cap", "VoG cap: accepted at SR-MKG score"
    VOG_GROUNDED = "vog_grounded", "VoG grounded"
    VOG_PARTIAL = "vog_partial", "VoG partial"
    VOG_REJECTED = "vog_rejected", "VoG rejected"
    VOG_NO_EVIDENCE = "vog_no_evidence", "VoG: no evidence"
    VOG_UNAVAILABLE = "vog_unavailable", "VoG: judge unavailable"
    REVIEWER = "reviewer", "Reviewer decision"


class RelationDecision(models.Model):
    """One SR-MKG decision with its raw components and the final label (append-only)."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="relation_decisions"
    )
    relation = models.ForeignKey(
        ClaimRelation, on_delete=models.SET_NULL, null=True, blank=True, related_name="decisions"
    )
    relation_type = models.CharField(max_length=40)
    base = models.FloatField()
    jaccard = models.FloatField()
    type_boost = models.FloatField()
    isolated = models.FloatField()
    score = models.FloatField()
    level = models.CharField(max_length=20, choices=DecisionLevel.choices)
    source = models.CharField(max_length=8)  # srmkg | vog | cap | reviewer
    # accept | reject | withdrawn (a reviewer's undo: takes back the decision ``withdraws``
    # names, just before it in the relation's log; the pair is skipped by stats and
    # calibration)
    label = models.CharField(max_length=12)
    vog_verdict = models.CharField(max_length=10, blank=True)
    vog_confidence = models.FloatField(null=True, blank=True)
    vog_score = models.FloatField(null=True, blank=True)
    was_hallucination_blocked = models.BooleanField(default=False)
    needs_review = models.BooleanField(default=False)
    calibration_version = models.PositiveIntegerField(null=True, blank=True)
    judge_model = models.CharField(max_length=200, blank=True)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.CharField(max_length=300, blank=True)
    # On a ``withdrawn`` row: the decision it takes back. A link of its own, not the
    # order of the relation's log: deleting the relation empties ``relation`` on every
    # row of its log, and the withdrawn decision must still never count.
    withdraws = models.OneToOneField(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="withdrawal"
    )
    # On a reviewer's decision: the relation's ``verification`` and
    # ``verification_level`` just before it, what an undo puts back (whether or not the
    # automatic decisions were logged). Empty on automatic rows.
    replaced_verification = models.CharField(max_length=10, blank=True)
    replaced_level = models.CharField(max_length=20, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["workspace", "created_at"])]

    def __str__(self) -> str:
        return f"{self.level} {self.score:.3f} ({self.label})"


class ChunkVerificationEvent(models.Model):
    """One run of the chunk prefilter. ``chunks_rejected_srmkg`` keeps the seed's
    back-compat name: it counts chunks cut by the VECTOR prefilter, not by SR-MKG."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    chunks_in = models.PositiveIntegerField(default=0)
    chunks_rejected_srmkg = models.PositiveIntegerField(default=0)
    chunks_rejected_vog = models.PositiveIntegerField(default=0)
    vog_scores = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return (
            f"chunks {self.chunks_in} -{self.chunks_rejected_srmkg}v -{self.chunks_rejected_vog}g"
        )


class SrmkgCalibration(models.Model):
    """A learned SR-MKG calibration; the workspace's newest version is the active one.
    Deleting the records reverts the scorer to the heuristic weights."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="srmkg_calibrations"
    )
    version = models.PositiveIntegerField()
    weights = models.JSONField()
    bias = models.FloatField()
    auc = models.FloatField(null=True, blank=True)
    n_train = models.PositiveIntegerField()
    n_test = models.PositiveIntegerField()
    params = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "version"], name="srmkg_calibration_unique_version"
            )
        ]

    def __str__(self) -> str:
        return f"SR-MKG calibration v{self.version} of {self.workspace_id}"
