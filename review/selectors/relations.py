"""Reads of the relations page's own lists: the relations reviewers decided."""

from __future__ import annotations

from django.db.models import QuerySet

from verifier.models import ClaimRelation, Workspace

# How many of the latest decisions the relations page lists.
DECIDED_SHOWN = 25


def review_relations_decided(
    *, workspace: Workspace, limit: int = DECIDED_SHOWN
) -> list[ClaimRelation]:
    """The workspace's relations a reviewer decided, latest decision first (up to
    ``limit``): who accepted or rejected which, and when, beside the list of those still
    waiting (a decided relation leaves that list)."""
    rows: QuerySet[ClaimRelation] = (
        ClaimRelation.objects.filter(
            workspace=workspace, verification_level="reviewer", reviewed_by__isnull=False
        )
        .select_related("from_claim", "to_claim", "reviewed_by")
        .order_by("-reviewed_at", "-pk")
    )
    return list(rows[:limit])
