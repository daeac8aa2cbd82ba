"""Seed 004 writes: verify claim relations (SR-MKG → VoG → cap), log every decision,
record chunk-prefilter events, and store SR-MKG calibrations.

A relation's endpoints are its two claims; their topology is the workspace's claim
relation graph (every relation not rejected, undirected). VoG gets both spans, as the
seed's contract has them: ``source_text`` is the FROM claim's active bound span (the
evidence), ``target_text`` the TO claim's; the judge is asked whether the first
supports the second (for ``contradicts``: whether it contradicts it), or the TO claim's
text when it has no bound span. The statement is never built from the evidence
itself: a statement quoting both texts is "covered" by them whatever they say, and the
lexical heuristic judge then grounds any pair. A FROM claim with no bound span gives
VoG nothing to verify (``vog_no_evidence``, no call, not counted by the cap).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final

from django.db import transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone

from verifier import vocabulary
from verifier.errors import ApplicationError
from verifier.judges.base import Judge
from verifier.models import (
    ChunkVerificationEvent,
    Claim,
    ClaimRelation,
    EvidenceBinding,
    RelationDecision,
    RelationVerification,
    SrmkgCalibration,
    Workspace,
)
from verifier.relations import calibration as calibration_core
from verifier.relations.chunks import ChunkLike, verify_chunks
from verifier.relations.cycle import RelationCandidate, candidate_components, verify_relations
from verifier.relations.cycle import RelationDecision as Decision
from verifier.relations.srmkg import COMPONENTS
from verifier.relations.srmkg import score as srmkg_score
from verifier.selectors.relation_verification import (
    WITHDRAWN,
    relation_decision_list,
    relation_settings_get,
    relation_undo_seconds,
    srmkg_calibration_active,
)
from verifier.time_words import utc_words

# Rows per UPDATE / INSERT statement (bulk_update's CASE grows with the batch).
WRITE_BATCH: Final = 500
# The labels of a decision that answers (what calibration learns from); a reviewer's
# undo appends ``WITHDRAWN`` instead.
DECISION_LABELS: Final = ("accept", "reject")
# What a reviewer's decision, and its undo, change on the relation.
REVIEW_FIELDS: Final = (
    "verification",
    "verification_level",
    "needs_review",
    "reviewed_by",
    "reviewed_at",
)


@dataclass(frozen=True)
class RelationsVerifyReport:
    checked: int
    accepted: int
    rejected: int
    vog_calls: int
    capped: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def _neighbours(workspace: Workspace, claim_pks: set[int]) -> dict[int, set[int]]:
    out: dict[int, set[int]] = defaultdict(set)
    edges = (
        ClaimRelation.objects.filter(workspace=workspace)
        .exclude(verification=RelationVerification.REJECTED)
        .filter(Q(from_claim_id__in=claim_pks) | Q(to_claim_id__in=claim_pks))
        .values_list("from_claim_id", "to_claim_id")
    )
    for a, b in edges:
        out[a].add(b)
        out[b].add(a)
    return out


def _quotes(claim_pks: set[int]) -> dict[int, str]:
    return dict(
        EvidenceBinding.objects.filter(claim_id__in=claim_pks, is_active=True).values_list(
            "claim_id", "quote"
        )
    )


def relations_verify(
    *, workspace: Workspace, relations: Iterable[ClaimRelation], judge: Judge | None
) -> RelationsVerifyReport:
    """One verification cycle over ``relations`` (at most ``vog_max_candidates`` VoG
    calls); sets each relation's verification and logs the decisions."""
    rels = [r for r in relations if r.workspace_id == workspace.pk]
    if not rels:
        return RelationsVerifyReport(0, 0, 0, 0, 0)
    settings = relation_settings_get(workspace=workspace)
    calibration = srmkg_calibration_active(workspace=workspace)
    claim_pks = {r.from_claim_id for r in rels} | {r.to_claim_id for r in rels}
    quotes = _quotes(claim_pks)
    candidates = [
        RelationCandidate(
            key=str(r.pk),
            from_ref=r.from_claim_id,
            to_ref=r.to_claim_id,
            relation_type=r.kind,
            confidence=r.confidence,
            source_text=quotes.get(r.from_claim_id, ""),
            target_text=quotes.get(r.to_claim_id, ""),
            statement=r.to_claim.text,
            contradiction=r.kind == "contradicts",
            target_is_claim=True,
        )
        for r in rels
    ]
    decisions = verify_relations(
        candidates, _neighbours(workspace, claim_pks), settings, judge, calibration
    )
    by_pk = {str(r.pk): r for r in rels}
    judge_model = getattr(judge, "model_id", "") if judge is not None else ""
    version = calibration.version if calibration is not None else None
    read = {r.pk: r.verification for r in rels}
    with transaction.atomic():
        # Only relations still as this cycle read them, under their row locks (in pk
        # order): the judge was asked outside any transaction, and another cycle over the
        # same pending relations (two ingest jobs ending together) may have decided them
        # meanwhile; writing again would log each decision twice for the calibration.
        current = ClaimRelation.objects.select_for_update().filter(pk__in=read).order_by("pk")
        still = {pk for pk, now in current.values_list("pk", "verification") if now == read[pk]}
        decisions = [d for d in decisions if by_pk[d.key].pk in still]
        rels = [r for r in rels if r.pk in still]
        for d in decisions:
            relation = by_pk[d.key]
            relation.verification = (
                RelationVerification.ACCEPTED if d.accepted else RelationVerification.REJECTED
            )
            relation.verification_level = d.level
            relation.verification_score = d.score
            relation.needs_review = d.needs_review
        ClaimRelation.objects.bulk_update(
            rels,
            ["verification", "verification_level", "verification_score", "needs_review"],
            batch_size=WRITE_BATCH,
        )
        if settings.srmkg_log_decisions:
            RelationDecision.objects.bulk_create(
                [
                    _decision_row(workspace, by_pk[d.key], d, judge_model, version)
                    for d in decisions
                ],
                batch_size=WRITE_BATCH,
            )
    return RelationsVerifyReport(
        checked=len(decisions),
        accepted=sum(d.accepted for d in decisions),
        rejected=sum(not d.accepted for d in decisions),
        vog_calls=sum(d.source == "vog" and d.level != "vog_no_evidence" for d in decisions),
        capped=sum(d.level == "srmkg_cap" for d in decisions),
    )


def _decision_row(
    workspace: Workspace,
    relation: ClaimRelation,
    d: Decision,
    judge_model: str,
    calibration_version: int | None,
) -> RelationDecision:
    parts = d.components
    return RelationDecision(
        workspace=workspace,
        relation=relation,
        relation_type=relation.kind,
        base=parts.base,
        jaccard=parts.jaccard,
        type_boost=parts.type_boost,
        isolated=parts.isolated,
        score=d.score,
        level=d.level,
        source=d.source,
        label=d.label,
        vog_verdict=d.vog_verdict or "",
        vog_confidence=d.vog_confidence,
        vog_score=d.vog_score,
        was_hallucination_blocked=d.hallucination_blocked,
        needs_review=d.needs_review,
        calibration_version=calibration_version,
        judge_model=judge_model if d.source == "vog" else "",
        note=d.note[:300],
    )


def relations_verify_pending(
    *, workspace: Workspace, judge: Judge | None, from_claims: QuerySet[Claim] | None = None
) -> RelationsVerifyReport:
    """One cycle over the workspace's pending relations (those starting at
    ``from_claims`` when given, e.g. one ingest job's claims)."""
    rows = ClaimRelation.objects.filter(
        workspace=workspace, verification=RelationVerification.PENDING
    )
    if from_claims is not None:
        rows = rows.filter(from_claim__in=from_claims)
    rows = rows.select_related("from_claim", "to_claim").order_by("pk")
    return relations_verify(workspace=workspace, relations=list(rows), judge=judge)


def chunks_verify(
    *, workspace: Workspace, chunks: Sequence[ChunkLike], query: str, judge: Judge | None
) -> dict[str, list[Any]]:
    """The chunk prefilter (seed 004: the search prunes its chunk pool with it before
    assembling the final context; our search of chunks is the worker's sentence-index
    search, ``verifier.services.claim_worker_chunk_prefilter``), recorded as one event for the
    statistics. The judge is asked outside any transaction."""
    result = verify_chunks(
        chunks, query, settings=relation_settings_get(workspace=workspace), judge=judge
    )
    with transaction.atomic():
        ChunkVerificationEvent.objects.create(
            workspace=workspace,
            chunks_in=len(chunks),
            chunks_rejected_srmkg=len(result["rejected_vector"]),
            chunks_rejected_vog=len(result["rejected_vog"]),
            vog_scores=list(result["vog_scores"]),
        )
    return result


def srmkg_calibrate(
    *,
    workspace: Workspace,
    min_samples: int = calibration_core.DEFAULT_MIN_SAMPLES,
    test_fraction: float = calibration_core.DEFAULT_TEST_FRACTION,
    l2: float = calibration_core.DEFAULT_L2,
    lr: float = calibration_core.DEFAULT_LR,
    epochs: int = calibration_core.DEFAULT_EPOCHS,
    dry_run: bool = False,
) -> dict[str, Any]:
    """Fit on the workspace's logged decisions; store a new version unless ``dry_run``.
    Raises ``CalibrationRefused`` (nothing stored) on too few rows or one class."""
    # Only decisions that stand, and only accept / reject: a reviewer's undo
    # ("withdrawn") and the decision it took back teach nothing, and a label that is not
    # an answer must never count as a reject.
    rows = list(
        relation_decision_list(workspace=workspace)
        .filter(label__in=DECISION_LABELS)
        .values_list(*COMPONENTS, "label")
    )
    result = calibration_core.calibrate(
        [list(r[:4]) for r in rows],
        [1 if r[4] == "accept" else 0 for r in rows],
        min_samples=min_samples,
        test_fraction=test_fraction,
        l2=l2,
        lr=lr,
        epochs=epochs,
    )
    out: dict[str, Any] = {"workspace": workspace.slug, **result.as_dict(), "version": None}
    params = {
        "min_samples": min_samples,
        "test_fraction": test_fraction,
        "l2": l2,
        "lr": lr,
        "epochs": epochs,
    }
    out["params"] = params
    if dry_run:
        out["stored"] = False
        return out
    with transaction.atomic():
        Workspace.objects.select_for_update().get(pk=workspace.pk)
        latest = SrmkgCalibration.objects.filter(workspace=workspace).aggregate(v=Max("version"))
        version = (latest["v"] or 0) + 1
        SrmkgCalibration.objects.create(
            workspace=workspace,
            version=version,
            weights=result.weights,
            bias=result.bias,
            auc=result.auc,
            n_train=result.n_train,
            n_test=result.n_test,
            params=params,
        )
    out["version"] = version
    out["stored"] = True
    return out


class RelationReviewError(ApplicationError):
    """The relation cannot be decided now (not in the review queue any more)."""

    def __init__(self, message: str, *, code: str = "not_in_review") -> None:
        super().__init__(code, message)


def _no_longer_waiting(row: ClaimRelation) -> str:
    """Why ``row`` is not waiting for review any more, naming who decided it and when
    (as the claim queue's stale decision does: "Already decided by rita at 06:45 UTC")."""
    outcome = vocabulary.label("outcome", row.verification).lower()
    if row.reviewed_by is not None and row.verification_level == "reviewer":
        when = f" at {utc_words(row.reviewed_at, 'time')}" if row.reviewed_at else ""
        return (
            f"Relation {row.pk} was already {outcome} by {row.reviewed_by.get_username()}"
            f"{when}: it is no longer waiting for review."
        )
    how = vocabulary.label("level", row.verification_level) if row.verification_level else ""
    return f"Relation {row.pk} is no longer waiting for review: it is {outcome}" + (
        f" ({how})." if how else "."
    )


def _components_now(row: ClaimRelation) -> RelationDecision:
    """The SR-MKG components of ``row`` in the graph as it is now (an unsaved log row),
    for a reviewer's decision on a relation whose automatic decision was not logged
    (``srmkg_log_decisions`` off): the same components the cycle computes."""
    workspace = row.workspace
    parts = candidate_components(
        from_ref=row.from_claim_id,
        to_ref=row.to_claim_id,
        confidence=row.confidence,
        relation_type=row.kind,
        neighbours=_neighbours(workspace, {row.from_claim_id, row.to_claim_id}),
    )
    calibration = srmkg_calibration_active(workspace=workspace)
    value = row.verification_score
    if value is None:
        value = srmkg_score(parts, relation_settings_get(workspace=workspace), calibration)
    return RelationDecision(
        base=parts.base,
        jaccard=parts.jaccard,
        type_boost=parts.type_boost,
        isolated=parts.isolated,
        score=value,
        calibration_version=calibration.version if calibration is not None else None,
    )


def _reviewer_log_row(
    row: ClaimRelation,
    components: RelationDecision,
    *,
    reviewer: Any,
    label: str,
    needs_review: bool = False,
    note: str = "",
    withdraws: RelationDecision | None = None,
    replaced: tuple[str, str] = ("", ""),
) -> RelationDecision:
    """Log a reviewer's ``label`` on ``row`` (a decision, or ``withdrawn`` by an undo,
    naming the decision it ``withdraws``) with the SR-MKG components of ``components``,
    so calibration reads it like the automatic ones; a decision keeps the verification
    and level it ``replaced``."""
    return RelationDecision.objects.create(
        workspace=row.workspace,
        relation=row,
        relation_type=row.kind,
        base=components.base,
        jaccard=components.jaccard,
        type_boost=components.type_boost,
        isolated=components.isolated,
        score=components.score,
        level="reviewer",
        source="reviewer",
        label=label,
        needs_review=needs_review,
        calibration_version=components.calibration_version,
        reviewer=reviewer,
        note=note,
        withdraws=withdraws,
        replaced_verification=replaced[0],
        replaced_level=replaced[1],
    )


def relation_review_decide(
    *, relation: ClaimRelation, reviewer: Any, accept: bool
) -> ClaimRelation:
    """A reviewer accepts or rejects a flagged relation. The decision is logged like the
    automatic ones (same components, ``level``/``source`` ``reviewer``), so calibration
    learns from it; the relation leaves the review queue. It is logged whatever
    ``srmkg_log_decisions`` says (that setting is the automatic cycle's): the row keeps
    the verification and level it replaced, so the reviewer can undo it; when the
    automatic decision was not logged, its components are computed now."""
    with transaction.atomic():
        row = ClaimRelation.objects.select_for_update().get(pk=relation.pk)
        if not row.needs_review:
            raise RelationReviewError(_no_longer_waiting(row))
        replaced = (row.verification, row.verification_level)
        row.verification = (
            RelationVerification.ACCEPTED if accept else RelationVerification.REJECTED
        )
        row.verification_level = "reviewer"
        row.needs_review = False
        row.reviewed_by = reviewer
        row.reviewed_at = timezone.now()
        row.save(update_fields=REVIEW_FIELDS)
        last = row.decisions.order_by("-pk").first()
        _reviewer_log_row(
            row,
            last if last is not None else _components_now(row),
            reviewer=reviewer,
            label="accept" if accept else "reject",
            replaced=replaced,
        )
    return row


def _decided_in_words(decision: RelationDecision) -> str:
    """ "rejected by omar at 06:45 UTC" for a reviewer's decision row."""
    verification = (
        RelationVerification.ACCEPTED
        if decision.label == "accept"
        else RelationVerification.REJECTED
    )
    outcome = vocabulary.label("outcome", verification).lower()
    who = decision.reviewer.get_username() if decision.reviewer is not None else "a reviewer"
    return f"{outcome} by {who} at {utc_words(decision.created_at, 'time')}"


def _state_before(row: ClaimRelation, decision: RelationDecision) -> tuple[str, str] | None:
    """The verification and level ``row`` had before the reviewer's ``decision``: the
    ones the decision replaced, else (a decision logged before it kept them) those of
    the last automatic decision before it in the log; None when neither is known."""
    if decision.replaced_verification and decision.replaced_level:
        return decision.replaced_verification, decision.replaced_level
    before = (
        row.decisions.filter(pk__lt=decision.pk)
        .exclude(source="reviewer")
        .exclude(label=WITHDRAWN)
        .order_by("-pk")
        .first()
    )
    if before is None:
        return None
    accepted = before.label == "accept"
    verification = RelationVerification.ACCEPTED if accepted else RelationVerification.REJECTED
    return verification, before.level


def relation_review_undo(
    *, relation: ClaimRelation, reviewer: Any, decision_id: int | None = None
) -> ClaimRelation:
    """Take back a reviewer's decision on ``relation``, as the claim queue's undo does
    (``review.services.review_undo``): only the reviewer who decided, only the latest
    entry of the relation's log, and only inside the undo window
    (``SPANPROOF_REVIEW_UNDO_SECONDS``). Nothing is deleted: a ``withdrawn`` row is
    appended naming the decision it takes back (``withdraws``: statistics and calibration
    skip both, even once the relation is deleted), and the relation is back where it was
    before the decision: waiting for review, with the verification and level the
    decision replaced, no reviewer. This works whether or not the automatic decisions
    are logged (``srmkg_log_decisions``): a reviewer's decision is always logged.
    ``decision_id`` is the decision the reviewer saw (the page's form): when another
    decision has been logged since, nothing is undone.

    Refused with ``RelationReviewError``: ``nothing_to_undo`` (no reviewer's decision
    stands: never decided by a reviewer, already undone, verified again since),
    ``decided_meanwhile`` (someone decided again since the one shown or since this
    reviewer's own), ``not_yours`` (another reviewer's decision) and ``undo_expired``."""
    with transaction.atomic():
        row = ClaimRelation.objects.select_for_update().get(pk=relation.pk)
        latest = row.decisions.select_related("reviewer").order_by("-pk").first()
        decided_by_reviewer = (
            latest is not None
            and latest.source == "reviewer"
            and latest.label in DECISION_LABELS
            and not row.needs_review
            and row.verification_level == "reviewer"
        )
        if latest is None or not decided_by_reviewer:
            raise RelationReviewError(
                f"Relation {row.pk} has no reviewer's decision to undo"
                + (": it is waiting for review." if row.needs_review else "."),
                code="nothing_to_undo",
            )
        if decision_id is not None and latest.pk != decision_id:
            raise RelationReviewError(
                f"Relation {row.pk} was decided again meanwhile ({_decided_in_words(latest)}):"
                " nothing was undone.",
                code="decided_meanwhile",
            )
        if latest.reviewer_id != reviewer.pk:
            own_before = row.decisions.filter(pk__lt=latest.pk, reviewer_id=reviewer.pk).exists()
            if own_before:
                raise RelationReviewError(
                    f"Relation {row.pk} was decided again meanwhile "
                    f"({_decided_in_words(latest)}): nothing was undone.",
                    code="decided_meanwhile",
                )
            raise RelationReviewError(
                f"Relation {row.pk} was {_decided_in_words(latest)}: only the reviewer who "
                "decided can undo it.",
                code="not_yours",
            )
        window = relation_undo_seconds()
        if timezone.now() - latest.created_at > timedelta(seconds=window):
            raise RelationReviewError(
                f"Too late to undo: a decision can be undone for {window // 60} minutes.",
                code="undo_expired",
            )
        back = _state_before(row, latest)
        if back is None:
            raise RelationReviewError(
                f"Relation {row.pk} has no automatic decision to go back to.",
                code="nothing_to_undo",
            )
        _reviewer_log_row(
            row,
            latest,
            reviewer=reviewer,
            label=WITHDRAWN,
            needs_review=True,
            note=f"undo: withdraws decision {latest.pk} ({latest.label})",
            withdraws=latest,
        )
        row.verification, row.verification_level = back
        row.needs_review = True
        row.reviewed_by = None
        row.reviewed_at = None
        row.save(update_fields=REVIEW_FIELDS)
    return row


# The most relations one bulk decision may cover.
RELATION_BULK_MAX: Final = 1000


@dataclass(frozen=True)
class RelationBulkOutcome:
    """What a bulk decision did: ``decided`` relations, and ``skipped`` ones that had left
    the review queue meanwhile (someone decided them first)."""

    decided: int
    skipped: int


def relations_review_decide_bulk(
    *, relations: Sequence[ClaimRelation], reviewer: Any, accept: bool
) -> RelationBulkOutcome:
    """Accept or reject each relation through :func:`relation_review_decide`, the single
    action's service (same log row, same rules), all in one transaction; a relation no
    longer waiting for review is skipped and counted, never decided twice."""
    if len(relations) > RELATION_BULK_MAX:
        raise RelationReviewError(
            f"At most {RELATION_BULK_MAX} relations at once; narrow the filter.",
            code="too_many_relations",
        )
    decided = skipped = 0
    with transaction.atomic():
        for relation in sorted(relations, key=lambda r: r.pk):
            try:
                relation_review_decide(relation=relation, reviewer=reviewer, accept=accept)
            except RelationReviewError:
                skipped += 1
            else:
                decided += 1
    return RelationBulkOutcome(decided=decided, skipped=skipped)
