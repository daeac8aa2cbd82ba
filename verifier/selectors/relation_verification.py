"""Reads for seed 004 relation verification: effective settings, the active
calibration, decision rows, statistics and the relations that need review."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings as django_settings
from django.db.models import Avg, Count, Q, QuerySet, Sum
from django.utils import timezone

from verifier.models import (
    ChunkVerificationEvent,
    ClaimRelation,
    DecisionLevel,
    RelationDecision,
    RelationVerificationConfig,
    SrmkgCalibration,
    Workspace,
)
from verifier.relations.srmkg import Calibration, VerificationSettings
from verifier.selectors.text_search import text_search


def relation_settings_get(*, workspace: Workspace) -> VerificationSettings:
    """Defaults ← ``settings.SPANPROOF_RELATION_VERIFICATION`` ← the workspace's config."""
    values: dict[str, Any] = dict(getattr(django_settings, "SPANPROOF_RELATION_VERIFICATION", {}))
    config = RelationVerificationConfig.objects.filter(workspace=workspace).first()
    if config is not None:
        values.update(config.values or {})
    return VerificationSettings.from_mapping(values)


def srmkg_calibration_active(*, workspace: Workspace) -> Calibration | None:
    """The newest calibration record of ``workspace``, or None (heuristic weights)."""
    row = SrmkgCalibration.objects.filter(workspace=workspace).order_by("-version").first()
    if row is None:
        return None
    return Calibration(
        weights={k: float(v) for k, v in row.weights.items()}, bias=row.bias, version=row.version
    )


# A reviewer's undo of a relation decision (``relation_review_undo``): a log row with
# this label takes back the decision its ``withdraws`` names.
WITHDRAWN = "withdrawn"


def relation_decision_list(
    *,
    workspace: Workspace | None = None,
    days: int | None = None,
    include_withdrawn: bool = False,
) -> QuerySet[RelationDecision]:
    """The logged relation decisions, oldest first. Unless ``include_withdrawn``, a
    reviewer's undo and the decision it took back (its ``withdraws``) are both left out,
    whatever became of the relation since (a deleted relation's log keeps the link), so
    statistics and calibration count only decisions that stand."""
    rows = RelationDecision.objects.all()
    if not include_withdrawn:
        rows = rows.exclude(label=WITHDRAWN).filter(withdrawal__isnull=True)
    if workspace is not None:
        rows = rows.filter(workspace=workspace)
    if days is not None:
        rows = rows.filter(created_at__gte=timezone.now() - timedelta(days=days))
    return rows.order_by("created_at", "pk")


def chunk_event_list(
    *, workspace: Workspace | None = None, days: int | None = None
) -> QuerySet[ChunkVerificationEvent]:
    rows = ChunkVerificationEvent.objects.all()
    if workspace is not None:
        rows = rows.filter(workspace=workspace)
    if days is not None:
        rows = rows.filter(created_at__gte=timezone.now() - timedelta(days=days))
    return rows.order_by("created_at", "pk")


def relation_stats_get(
    *, workspace: Workspace | None = None, days: int | None = None
) -> dict[str, Any]:
    """The seed's metrics under the seed's names: ``avg_vog_score`` (every recorded VoG
    score, relations and chunks), ``rejected_vector_prefilter`` (SUM
    ``chunks_rejected_srmkg``), ``rejected_by_vog`` (SUM ``chunks_rejected_vog``: chunks
    only, as the seed defines it), ``hallucinations_blocked``; beside them our own
    figures under their own names (``relations_rejected_by_vog``,
    ``rejected_by_vog_chunks_and_relations``, counts by level)."""
    decisions = relation_decision_list(workspace=workspace, days=days)
    agg = decisions.aggregate(
        decisions=Count("pk"),
        vog_sum_n=Count("vog_score"),
        vog_avg=Avg("vog_score"),
        blocked=Count("pk", filter=Q(was_hallucination_blocked=True)),
        relations_rejected_vog=Count("pk", filter=Q(source="vog", label="reject")),
        accepted=Count("pk", filter=Q(label="accept")),
        capped=Count("pk", filter=Q(level="srmkg_cap")),
    )
    chunks = chunk_event_list(workspace=workspace, days=days)
    chunk_agg = chunks.aggregate(
        rejected_vector=Sum("chunks_rejected_srmkg"), rejected_vog=Sum("chunks_rejected_vog")
    )
    scores = [float(s) for row in chunks.values_list("vog_scores", flat=True) for s in row or []]
    n_vog = agg["vog_sum_n"] + len(scores)
    total = (agg["vog_avg"] or 0.0) * agg["vog_sum_n"] + sum(scores)
    # order_by() clears the list's ordering, which would otherwise join the GROUP BY
    by_level = dict(
        decisions.order_by().values("level").annotate(n=Count("pk")).values_list("level", "n")
    )
    return {
        "avg_vog_score": round(total / n_vog, 4) if n_vog else None,
        "vog_scores_recorded": n_vog,
        "rejected_vector_prefilter": chunk_agg["rejected_vector"] or 0,
        "rejected_by_vog": chunk_agg["rejected_vog"] or 0,
        "chunks_rejected_by_vog": chunk_agg["rejected_vog"] or 0,
        "relations_rejected_by_vog": agg["relations_rejected_vog"],
        "rejected_by_vog_chunks_and_relations": (chunk_agg["rejected_vog"] or 0)
        + agg["relations_rejected_vog"],
        "hallucinations_blocked": agg["blocked"],
        "decisions": agg["decisions"],
        "accepted": agg["accepted"],
        "capped": agg["capped"],
        "by_level": by_level,
    }


def relations_for_review(
    *, workspace: Workspace, level: str = "", kind: str = "", q: str = ""
) -> QuerySet[ClaimRelation]:
    """Rejected relations and relations accepted past the VoG cap, newest first; narrowed
    to a decision ``level``, a relation ``kind`` and, given ``q``, relations either of whose
    claims contains it by the search rule or is the claim of that id."""
    rows = ClaimRelation.objects.filter(workspace=workspace, needs_review=True)
    if level:
        rows = rows.filter(verification_level=level)
    if kind:
        rows = rows.filter(kind=kind)
    # either claim's text by the search rule (verifier.selectors.text_search), or its id
    match = text_search(q, "from_claim__text_folded", "to_claim__text_folded")
    if match is not None:
        q = q.strip()
        rows = rows.filter(match | Q(from_claim__public_id=q) | Q(to_claim__public_id=q))
    return rows.select_related("from_claim", "to_claim").order_by("-created_at", "-pk")


def relations_for_review_levels(*, workspace: Workspace) -> dict[str, int]:
    """How many relations wait for review at each decision level (the levels the review
    list's Level filter offers: a relation decided by a reviewer, or accepted by the
    graph check or the judge, never waits), in level order (one query)."""
    counts = dict(
        ClaimRelation.objects.filter(workspace=workspace, needs_review=True)
        .order_by()
        .values("verification_level")
        .annotate(n=Count("pk"))
        .values_list("verification_level", "n")
    )
    order = [level for level in DecisionLevel.values if level in counts]
    return {level: counts[level] for level in order + sorted(set(counts) - set(order))}


def relation_list(
    *,
    workspace: Workspace,
    verification: str | None = None,
    kind: str | None = None,
    needs_review: bool | None = None,
    claim: str | None = None,
) -> QuerySet[ClaimRelation]:
    """The workspace's relations for the API, newest first (by id): narrowed to a
    verification outcome, a kind, whether a reviewer is asked to look, and the relations
    of one claim (by its public id, either end) when given."""
    rows = ClaimRelation.objects.filter(workspace=workspace)
    if verification:
        rows = rows.filter(verification=verification)
    if kind:
        rows = rows.filter(kind=kind)
    if needs_review is not None:
        rows = rows.filter(needs_review=needs_review)
    if claim:
        rows = rows.filter(Q(from_claim__public_id=claim) | Q(to_claim__public_id=claim))
    return rows.select_related("from_claim", "to_claim").order_by("-id")


def relation_undo_seconds() -> int:
    """How long after deciding a reviewer may undo a relation decision: the claim queue's
    window (``SPANPROOF_REVIEW_UNDO_SECONDS``, 5 minutes by default)."""
    return int(django_settings.SPANPROOF_REVIEW_UNDO_SECONDS)


def relation_decision_is_undoable(decision: RelationDecision, *, reviewer_id: int | None) -> bool:
    """Whether ``decision``, the latest row of its relation's log, is a reviewer's
    decision that ``reviewer_id`` may still undo: their own, inside the undo window."""
    return (
        decision.source == "reviewer"
        and decision.label in ("accept", "reject")
        and reviewer_id is not None
        and decision.reviewer_id == reviewer_id
        and timezone.now() - decision.created_at <= timedelta(seconds=relation_undo_seconds())
    )


def relation_latest_decisions(*, relation_pks: list[int]) -> dict[int, RelationDecision]:
    """The latest log row of each of ``relation_pks`` (those that have one), in one
    query: what an undo of the relation would take back."""
    if not relation_pks:
        return {}
    rows = (
        RelationDecision.objects.filter(relation_id__in=relation_pks)
        .order_by("relation_id", "-pk")
        .distinct("relation_id")
    )
    return {row.relation_id: row for row in rows if row.relation_id is not None}
