from __future__ import annotations

from django.conf import settings
from django.db import models
from pgvector.django import VectorField

from verifier.embeddings import EMBEDDING_DIMENSIONS
from verifier.models.claims import Claim
from verifier.models.sources import Source, SourceVersion
from verifier.models.workspaces import Workspace


class MemoryTranscript(models.Model):
    """A transcript stored as one hashed source version, with its turns' offsets."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="memory_transcripts"
    )
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="transcripts")
    version = models.ForeignKey(SourceVersion, on_delete=models.CASCADE, related_name="transcripts")
    turns = models.JSONField(
        help_text='[{"index", "speaker", "text", "timestamp", "start", "end"}]; offsets '
        "into the version text."
    )
    complete = models.BooleanField(default=True, help_text="False when turns are missing.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "complete"], name="memorytranscript_unique_version"
            ),
        ]


class MemoryUnitVector(models.Model):
    """The embedding of one sentence unit of a stored transcript (``verifier.memory.units``:
    a sentence, two adjacent sentences or a whole turn), written once, by the first check
    that embedded it (``verifier.services.memory``), and read by every later check
    instead of embedding the unit again. ``embedding_model`` names the model that made
    it: a check reads only its own model's vectors. A derived cache, not history; the
    text is the transcript version's text at ``[start, end)``."""

    transcript = models.ForeignKey(
        MemoryTranscript, on_delete=models.CASCADE, related_name="unit_vectors"
    )
    embedding_model = models.CharField(max_length=300)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["transcript", "embedding_model", "start", "end"],
                name="memoryunitvector_unique_unit",
            ),
            models.CheckConstraint(
                condition=models.Q(start__gte=0) & models.Q(start__lt=models.F("end")),
                name="memoryunitvector_offsets_ordered",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.transcript_id} [{self.start}, {self.end})"


class MemoryCheck(models.Model):
    """One verified memory claim (append-only: a trigger rejects UPDATE and DELETE)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memory_checks")
    agent = models.CharField(max_length=100)
    agent_key = models.CharField(max_length=100, help_text="Case- and space-folded agent.")
    transcript = models.ForeignKey(
        MemoryTranscript, on_delete=models.CASCADE, null=True, blank=True, related_name="checks"
    )
    message = models.TextField()
    claim_text = models.TextField()
    claim_start = models.PositiveIntegerField()
    claim_end = models.PositiveIntegerField()
    claim_type = models.CharField(max_length=16)
    outcome = models.CharField(max_length=32)
    drift_categories = models.JSONField(default=list)
    similarity = models.FloatField(null=True, blank=True)
    result = models.JSONField(help_text="The per-claim result as returned.")
    claim = models.ForeignKey(
        Claim, on_delete=models.CASCADE, null=True, blank=True, related_name="memory_checks"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["workspace", "agent_key"], name="memorycheck_ws_agent")]
