from __future__ import annotations

from django.db import models
from pgvector.django import HnswIndex, VectorField

from verifier.embeddings import EMBEDDING_DIMENSIONS
from verifier.models.sources import SourceVersion
from verifier.models.workspaces import Workspace


class SourceSentence(models.Model):
    """One sentence of a source's current version (the binding splitter's span) with its
    embedding: the sentence index ``POST /worker/verify`` searches beside the claims, so
    a sentence no extracted claim copied can still be evidence. A derived index, not
    history: the ingest store stage fills it (``verifier.services.sentence_index``) and
    drops the rows of a source's older versions when it indexes a newer one. The text is
    not stored; it is the version's text at ``[start, end)``."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="source_sentences"
    )
    source_version = models.ForeignKey(
        SourceVersion, on_delete=models.CASCADE, related_name="sentences"
    )
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source_version", "start", "end"], name="sourcesentence_unique_span"
            ),
            models.CheckConstraint(
                condition=models.Q(start__gte=0) & models.Q(start__lt=models.F("end")),
                name="sourcesentence_offsets_ordered",
            ),
        ]
        indexes = [
            HnswIndex(
                name="sourcesentence_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source_version_id} [{self.start}, {self.end})"
