from __future__ import annotations

import uuid

from django.db import models

from verifier.models.workspaces import Workspace


class Trace(models.Model):
    """The provenance of one retrieval: why the caller got this context."""

    trace_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # No index of its own: ``trace_ws_created`` leads with the workspace (every retrieve
    # writes a trace, so each index here is paid on the serving path).
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="traces", db_index=False
    )
    operation = models.CharField(max_length=40, default="retrieve")
    query = models.TextField(blank=True)
    domain_pack = models.CharField(max_length=64, blank=True)
    document = models.JSONField(help_text="The versioned trace document.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # The audit trace list's keyset pages: the workspace's traces newest first.
        indexes = [
            models.Index(fields=["workspace", "-created_at", "-id"], name="trace_ws_created")
        ]

    def __str__(self) -> str:
        return str(self.trace_id)


class TraceClaim(models.Model):
    """One claim a trace considered; lets a claim page list the traces that served it."""

    # No index of its own: ``traceclaim_unique`` leads with the trace (a retrieve writes
    # one row per claim it considered, 40 for 20 served, each paying every index).
    # No database foreign keys either (migration 0020): each row's two checks ran at the
    # commit of every retrieve (80 lookups, ~0.6 ms at 1,000,000 claims), and the claim's
    # took a KEY SHARE lock on the served claim row, writing WAL for a read and making
    # concurrent retrieves of the same claims share multixacts. Both ends are written by
    # ``trace_record`` alone, from rows the same transaction has just read, and neither
    # a claim nor a trace is deleted but through the ORM, whose CASCADE removes these
    # rows (``traces_purge_expired``, a workspace's deletion).
    trace = models.ForeignKey(
        Trace,
        on_delete=models.CASCADE,
        related_name="considered",
        db_index=False,
        db_constraint=False,
    )
    claim = models.ForeignKey(
        "verifier.Claim", on_delete=models.CASCADE, related_name="traces", db_constraint=False
    )
    included = models.BooleanField()
    exclusion_reason = models.CharField(max_length=40, blank=True)
    verification_state = models.CharField(max_length=16)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["trace", "claim"], name="traceclaim_unique"),
        ]
