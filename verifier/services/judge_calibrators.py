"""Writes for reviewer calibrators: fitting one from the workspace's human decisions
(proposed), activating it (its answers go into the verdict history of the claims it
decides, through the one state writer), deactivating it (the plain judge's answers
restored the same way), and the scheduled fit.

A calibrator's row is immutable (migration 0029); only its status moves. Everything the
judge reads comes from the judging service's item building
(``verifier.selectors.judge_items``), the plan of what a change does from
``verifier.selectors.calibrators.calibrator_plan``: activation applies exactly the plan
the admin was shown (computed again under the claims' row locks, chunk by chunk, by a
background job: ``services.calibrator_change_jobs``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from verifier.engine import get_judge
from verifier.errors import ApplicationError
from verifier.judges import Judge
from verifier.judges.reading import judge_reading
from verifier.judges.reviewer_calibrator import (
    MIN_DECISIONS,
    MIN_PER_CLASS,
    Calibrator,
    NotEnoughDecisions,
    fit_calibrator,
)
from verifier.models import (
    ActivityAction,
    CalibratorChangeAction,
    CalibratorChangeJob,
    CalibratorStatus,
    JudgeCalibrator,
    Workspace,
)
from verifier.selectors.calibrators import (
    calibrator_activation_refusal,
    calibrator_active,
    calibrator_decided_claims,
    calibrator_decisions_through,
    calibrator_new_decisions,
    calibrator_not_stated_claims,
    calibrator_precision_floor,
    calibrator_workspaces_with_decisions,
)
from verifier.selectors.judge_items import claims_judge_items
from verifier.services.activity import activity_record
from verifier.services.calibrator_change_jobs import calibrator_change_job_create
from verifier.state_policy import state_policy

logger = logging.getLogger(__name__)

DEFAULT_MIN_NEW_DECISIONS = 50


class CalibratorRefused(ApplicationError):
    """A calibrator the rules do not let anyone fit, activate or deactivate now."""

    def __init__(self, message: str, *, code: str = "calibrator_refused") -> None:
        super().__init__(code, message)


@dataclass(frozen=True)
class CalibratorFit:
    """A fit: the calibrator, its stored row (None on a dry run), what it learned from."""

    calibrator: Calibrator
    row: JudgeCalibrator | None
    judge_model: str
    judge_prompt_version: int  # the judge's reading it learned from
    decisions: int  # decisions with a fresh bound span, learned from
    unreadable: int  # decided claims without a fresh bound span (not learned from)
    floor: float
    not_stated: int = 0  # claims decided "not stated by the source" (not learned from)


def judge_calibrator_fit(
    *,
    workspace: Workspace,
    judge: Judge | None = None,
    actor: Any = None,
    dry_run: bool = False,
) -> CalibratorFit:
    """Fit a calibrator of the configured judge on the workspace's human decisions (a
    claim whose state rests on a reviewer's supported → True, contradicted → False; a
    "not stated" decision is left out), the judge reading each claim's bound span as it would be
    judged; store it as the next ``proposed`` version unless ``dry_run``. Raises
    ``CalibratorRefused`` when there are too few decisions to learn from."""
    judge = judge or get_judge()
    through = calibrator_decisions_through(workspace=workspace)
    decided = calibrator_decided_claims(workspace=workspace)
    prepared = claims_judge_items(
        claims=[claim for claim, _ in decided],
        with_context=getattr(judge, "reads_context", False),
    )
    usable = [
        (p, supported)
        for p, (_, supported) in zip(prepared, decided, strict=True)
        if p.item is not None
    ]
    floor = calibrator_precision_floor()
    not_stated = calibrator_not_stated_claims(workspace=workspace)
    try:
        if not decided:
            raise NotEnoughDecisions(
                "no reviewer has decided a claim supported or contradicted yet; a "
                f"calibrator needs {MIN_DECISIONS} such decisions, with {MIN_PER_CLASS} of each"
            )
        if not usable:
            raise NotEnoughDecisions(
                f"none of the {len(decided)} claims reviewers decided supported or "
                "contradicted has a bound span that is still fresh, so the judge cannot "
                "read them"
            )
        reading = judge_reading(judge, [p.item for p, _ in usable if p.item is not None])
        calibrator = fit_calibrator(
            reading.rows,
            [supported for _, supported in usable],
            reading.names,
            floor=floor,
            decided_floor=state_policy().confidence_floor,
        )
    except NotEnoughDecisions as exc:
        many = not_stated != 1
        left_out = (
            f" ({not_stated} claim{'s' if many else ''} decided “not stated by the source” "
            f"{'are' if many else 'is'} not learned from: a silent span is no contradiction)"
            if not_stated
            else ""
        )
        raise CalibratorRefused(f"{exc}{left_out}", code="not_enough_decisions") from exc
    fit = CalibratorFit(
        calibrator=calibrator,
        row=None,
        judge_model=str(judge.model_id),
        judge_prompt_version=int(judge.prompt_version),
        decisions=len(usable),
        unreadable=len(decided) - len(usable),
        floor=floor,
        not_stated=not_stated,
    )
    if dry_run:
        return fit
    row = _store(workspace=workspace, fit=fit, through=through, actor=actor)
    return replace(fit, row=row)


@transaction.atomic
def _store(
    *, workspace: Workspace, fit: CalibratorFit, through: int, actor: Any
) -> JudgeCalibrator:
    Workspace.objects.select_for_update().filter(pk=workspace.pk).first()  # one fit at a time
    latest = JudgeCalibrator.objects.filter(
        workspace=workspace, judge_model=fit.judge_model
    ).aggregate(v=Max("version"))["v"]
    figures = fit.calibrator.figures
    supported = figures.get("cv_supported") or {}
    contradicted = figures.get("cv_contradicted") or {}
    calibrated = figures.get("cv_calibrated") or {}
    plain = figures.get("cv_judge") or {}
    return JudgeCalibrator.objects.create(
        workspace=workspace,
        judge_model=fit.judge_model[:200],
        judge_prompt_version=fit.judge_prompt_version,
        version=(latest or 0) + 1,
        params=fit.calibrator.as_json(),
        training_size=int(figures.get("decisions", fit.decisions)),
        supported_decisions=int(figures.get("supported", 0)),
        contradicted_decisions=int(figures.get("contradicted", 0)),
        floor=fit.floor,
        cv_supported_precision=supported.get("precision"),
        cv_supported_recall=supported.get("recall"),
        cv_contradicted_precision=contradicted.get("precision"),
        cv_contradicted_recall=contradicted.get("recall"),
        cv_roc_auc=float(figures.get("cv_roc_auc", 0.5)),
        cv_abstention=calibrated.get("abstention"),
        cv_entailed_precision=calibrated.get("entailed_precision"),
        judge_abstention=plain.get("abstention"),
        judge_entailed_precision=plain.get("entailed_precision"),
        decisions_through=through,
        created_by=actor,
    )


def min_new_decisions() -> int:
    """Human decisions a workspace needs since its last calibrator for the next fit."""
    return int(
        getattr(settings, "SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS", DEFAULT_MIN_NEW_DECISIONS)
    )


def judge_calibrators_fit_due(*, judge: Judge | None = None) -> list[JudgeCalibrator]:
    """The scheduled fit: a proposed calibrator of the configured judge for every
    workspace with at least ``SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS`` (50) human
    decisions since its last one. A workspace with too few usable decisions is skipped
    (and tried again after the next ones). Returns the new rows."""
    judge = judge or get_judge()
    minimum = min_new_decisions()
    proposed: list[JudgeCalibrator] = []
    for workspace in calibrator_workspaces_with_decisions():
        new = calibrator_new_decisions(
            workspace=workspace,
            judge_model=str(judge.model_id),
            prompt_version=int(judge.prompt_version),
        )
        if new < minimum:
            continue
        try:
            fit = judge_calibrator_fit(workspace=workspace, judge=judge)
        except CalibratorRefused as exc:
            logger.info("no calibrator for %s: %s", workspace.slug, exc.message)
            continue
        if fit.row is not None:
            proposed.append(fit.row)
    return proposed


STALE_PREVIEW = "stale_preview"  # CalibratorRefused.code: the flip list shown no longer holds


@transaction.atomic
def judge_calibrator_activate(
    *,
    calibrator: JudgeCalibrator,
    actor: Any,
    judge: Judge | None = None,
    previewed_against: str | None = None,
) -> CalibratorChangeJob:
    """Put a proposed calibrator in force for its workspace and judge: the active one
    (if any) retires, and new verdicts of its judge pass through it from now on. Every
    claim of the workspace it answers for then gets its answer appended to its verdict
    history (decided where the judge did not decide; ``judge_reviewers_disagree`` where
    it would overrule the judge), states refreshed through the state writer — the plan
    the admin was shown — by the returned background job
    (``services.calibrator_change_jobs``). Refused below the precision floor, for a
    calibrator not proposed, and for another judge than the configured one.

    ``previewed_against``: the calibrator of its judge in force when the admin was shown
    the flip list (its id, "" for none; ``ActivationPreview.previewed_against``). Another
    one activated or deactivated since refuses it (code ``stale_preview``): the flip list
    shown is not what this activation would do, and the one in force would be retired
    unseen. None (no preview: a caller of the service) checks nothing."""
    # One activation or deactivation of the workspace's calibrators at a time: two
    # admins confirming together would otherwise both retire the same one (and the
    # second would break the one-active constraint) or both pass the check below.
    Workspace.objects.select_for_update().filter(pk=calibrator.workspace_id).first()
    row = JudgeCalibrator.objects.select_for_update().get(pk=calibrator.pk)
    judge = judge or get_judge()
    refusal = calibrator_activation_refusal(
        row=row, judge_model=str(judge.model_id), prompt_version=int(judge.prompt_version)
    )
    if refusal:
        raise CalibratorRefused(refusal)
    now = timezone.now()
    previous = calibrator_active(workspace=row.workspace, judge_model=row.judge_model)
    if previewed_against is not None and str(previous.pk if previous else "") != str(
        previewed_against
    ):
        raise CalibratorRefused(_stale_preview(row, previous), code=STALE_PREVIEW)
    if previous is not None:
        previous.status, previous.retired_at, previous.retired_by = (
            CalibratorStatus.RETIRED,
            now,
            actor,
        )
        previous.save(update_fields=["status", "retired_at", "retired_by"])
    row.status, row.activated_at, row.activated_by = CalibratorStatus.ACTIVE, now, actor
    row.save(update_fields=["status", "activated_at", "activated_by"])
    activity_record(
        workspace=row.workspace,
        action=ActivityAction.CALIBRATOR_ACTIVATED,
        target=f"reviewer calibrator v{row.version} ({row.judge_model})",
        details={"calibrator_id": row.pk, "retired": previous.pk if previous else None},
    )
    return calibrator_change_job_create(
        calibrator=row,
        action=CalibratorChangeAction.ACTIVATE,
        cause=f"reviewer calibrator v{row.version} activated",
        actor=actor,
    )


@transaction.atomic
def judge_calibrator_deactivate(
    *, calibrator: JudgeCalibrator, actor: Any, judge: Judge | None = None
) -> CalibratorChangeJob | None:
    """Retire the active calibrator: new verdicts are the plain judge's again, and every
    claim whose latest model verdict is a calibrator's gets the judge's own answer
    appended (states refreshed through the state writer) by the returned background job.
    Nothing is deleted: the calibrator's verdicts stay in the history. When the
    configured judge is another model now, the calibrator is only retired (its judge is
    not there to read again) and there is no job."""
    Workspace.objects.select_for_update().filter(pk=calibrator.workspace_id).first()
    row = JudgeCalibrator.objects.select_for_update().get(pk=calibrator.pk)
    if row.status != CalibratorStatus.ACTIVE:
        raise CalibratorRefused(
            f"{row} is {row.status}; only the active calibrator is deactivated."
        )
    row.status, row.retired_at, row.retired_by = CalibratorStatus.RETIRED, timezone.now(), actor
    row.save(update_fields=["status", "retired_at", "retired_by"])
    activity_record(
        workspace=row.workspace,
        action=ActivityAction.CALIBRATOR_DEACTIVATED,
        target=f"reviewer calibrator v{row.version} ({row.judge_model})",
        details={"calibrator_id": row.pk},
    )
    judge = judge or get_judge()
    if str(judge.model_id) != row.judge_model:
        return None
    return calibrator_change_job_create(
        calibrator=row,
        action=CalibratorChangeAction.DEACTIVATE,
        cause=f"reviewer calibrator v{row.version} deactivated: the judge's answer restored",
        actor=actor,
    )


def _stale_preview(row: JudgeCalibrator, now: JudgeCalibrator | None) -> str:
    """Why confirming ``row``'s activation is refused: the calibrator in force changed
    since its flip list was drawn (``now``: the one in force now, None for none)."""
    if now is None:
        changed = (
            f"the calibrator of {row.judge_model} that was in force when you previewed "
            f"this activation has been deactivated since"
        )
    else:
        by = now.activated_by.get_username() if now.activated_by else "someone"
        changed = f"{by} activated {now} after you previewed this activation"
    return (
        f"{row} was not activated: {changed}, so the flip list you were shown no longer "
        "holds. Check it again against the calibrator in force now, then confirm."
    )
