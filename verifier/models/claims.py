from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex, VectorField

from verifier.embeddings import EMBEDDING_DIMENSIONS
from verifier.models.sources import Source, search_folded
from verifier.models.workspaces import Workspace
from verifier.state_policy import queue_rank_default
from verifier.states import StateReason

# The states whose claims the review queue can list (its filters add ``inferred``);
# ``Claim.dependents`` is kept up to date for claims in these states.
QUEUED_STATES = ("unverified", "contradicted", "inferred")


_ID_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


_ID_LENGTH = 12


def new_claim_public_id() -> str:
    """``claim:`` and 12 base-36 characters, uniformly random: one draw below 36¹²
    written in base 36 (drawing each character with ``secrets.choice`` reads the OS
    random source 12 times, a measurable share of bulk extraction)."""
    n = secrets.randbelow(len(_ID_ALPHABET) ** _ID_LENGTH)
    chars = []
    for _ in range(_ID_LENGTH):
        n, digit = divmod(n, len(_ID_ALPHABET))
        chars.append(_ID_ALPHABET[digit])
    return "claim:" + "".join(chars)


class ClaimStateChoices(models.TextChoices):
    SUPPORTED = "supported", "Supported"
    INFERRED = "inferred", "Inferred"
    UNVERIFIED = "unverified", "Unverified"
    CONTRADICTED = "contradicted", "Contradicted"
    EXCLUDED = "excluded", "Excluded"


class ClaimOrigin(models.TextChoices):
    EXTRACTED = "extracted", "Extracted"
    IMPORTED = "imported", "Imported"
    RAG_ANSWER = "rag_answer", "RAG answer"
    MEMORY = "memory", "Memory"
    WORKER = "worker", "Worker"
    API = "api", "API"


class Claim(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="claims")
    public_id = models.CharField(max_length=40, unique=True, default=new_claim_public_id)
    text = models.TextField()
    # What the console's searches compare (verifier.selectors.text_search).
    text_folded = search_folded("text")
    original_text = models.TextField(
        blank=True, help_text="The text as first extracted or imported, kept when remediated."
    )
    source = models.ForeignKey(
        Source, on_delete=models.PROTECT, related_name="claims", help_text="The cited source."
    )
    state = models.CharField(
        max_length=16, choices=ClaimStateChoices.choices, default=ClaimStateChoices.UNVERIFIED
    )
    state_reason = models.CharField(max_length=40, blank=True, default=StateReason.NOT_JUDGED.value)
    origin = models.CharField(max_length=16, choices=ClaimOrigin.choices)
    legacy_affirmed = models.BooleanField(
        default=False, help_text="Affirmed by a system that predates evidence binding."
    )
    submitted_quote = models.TextField(blank=True, help_text="The quote the claim arrived with.")
    external_id = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="The submitting application's id for the claim (unique per workspace).",
    )
    metadata = models.JSONField(
        default=dict, blank=True, help_text="Whatever the submitting application attached."
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    ingest_job = models.ForeignKey(
        "verifier.IngestJob",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="claims",
    )
    duplicate_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="duplicates"
    )
    published = models.BooleanField(default=False, help_text="Visible to retrieval.")
    quality = models.CharField(
        max_length=16, blank=True, help_text="Rule-set class: supported, weak or unsupported."
    )
    quality_score = models.FloatField(null=True, blank=True)
    trust_score = models.PositiveSmallIntegerField(null=True, blank=True)
    flagged = models.BooleanField(default=False)
    exclusion_reason = models.CharField(
        max_length=300, blank=True, help_text="Set while soft-excluded (reversible)."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The review queue's sort keys, stored so that an index can serve its order and its
    # keyset pages (``claim_queue_keyset``, migration 0028). ``queue_rank``: the risk rank
    # of ``state_reason`` in the queue's order (``verifier.state_policy.queue_rank``),
    # written beside the reason by the state writer (``verifier.services.claim_state``),
    # re-ranked by ``migrate`` when the order changes; a plain column, so adding a
    # reason needs no migration. ``dependents``: how many relations (in and out) point
    # at the claim, kept by database triggers (migration 0016) while the claim is in a
    # QUEUED_STATES state, recounted when it enters one; outside them it is not
    # maintained. Trace rows do not count: retrieval writes them on every call, and
    # counting them would put claim-row writes on the serving path.
    queue_rank = models.SmallIntegerField(default=queue_rank_default, editable=False)
    dependents = models.IntegerField(default=0, db_default=0, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # The auditor's claim list (newest first) and its keyset pages.
            models.Index(fields=["workspace", "created_at", "id"], name="claim_ws_created"),
            models.Index(fields=["workspace", "state", "state_reason"], name="claim_ws_state"),
            models.Index(fields=["workspace", "published"], name="claim_ws_published"),
            # Retrieval only ever searches published claims, so only they are indexed:
            # the pipeline's many updates of unpublished claims then never pay an HNSW
            # insert (about 1.2 ms per updated row at 10k+ claims).
            HnswIndex(
                name="claim_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
                condition=models.Q(published=True),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(state__in=[s.value for s in ClaimStateChoices]),
                name="claim_state_valid",
            ),
            models.CheckConstraint(
                condition=models.Q(trust_score__isnull=True) | models.Q(trust_score__lte=100),
                name="claim_trust_score_range",
            ),
            # Idempotency of POST /connect/v1/claims/verify: one claim per external id.
            models.UniqueConstraint(
                fields=["workspace", "external_id"],
                condition=~models.Q(external_id=""),
                name="claim_ws_external_id_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.public_id
