"""Reads of the relations page's own lists: the relations reviewers decided."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from verifier.models import ClaimRelation, RelationDecision, Workspace
from verifier.selectors.relation_verification import (
    relation_decision_is_undoable,
    relation_latest_decisions,
)

# How many of the latest decisions the relations page lists.
DECIDED_SHOWN = 25


@dataclass(frozen=True)
class DecidedRelation:
    """A relation a reviewer decided, and the decision the viewer may undo on it (their
    own, the latest of its log, inside the undo window), if any."""

    relation: ClaimRelation
    undoable: RelationDecision | None


def review_relations_decided(
    *, workspace: Workspace, reviewer_id: int | None = None, limit: int = DECIDED_SHOWN
) -> list[DecidedRelation]:
    """The workspace's relations a reviewer decided, latest decision first (up to
    ``limit``): who accepted or rejected which, and when, beside the list of those still
    waiting (a decided relation leaves that list); each with the decision
    ``reviewer_id`` may undo on it (two queries, whatever the count)."""
    rows: QuerySet[ClaimRelation] = (
        ClaimRelation.objects.filter(
            workspace=workspace, verification_level="reviewer", reviewed_by__isnull=False
        )
        .select_related("from_claim", "to_claim", "reviewed_by")
        .order_by("-reviewed_at", "-pk")
    )
    relations = list(rows[:limit])
    latest = relation_latest_decisions(relation_pks=[r.pk for r in relations])
    out = []
    for relation in relations:
        decision = latest.get(relation.pk)
        undoable = (
            decision
            if decision is not None
            and relation_decision_is_undoable(decision, reviewer_id=reviewer_id)
            else None
        )
        out.append(DecidedRelation(relation=relation, undoable=undoable))
    return out
