"""Reads of reviewer calibrators (``verifier.models.JudgeCalibrator``): the ones in use,
the human decisions they learn from, the figures the console and the API show, and the
plan of what activating (or deactivating) one does to the workspace's claims.

The precision floor (``calibrator_precision_floor``): a calibrator may decide only where
its cross-validated precision for ``supported`` is at least the state policy's. The
state policy's own number is a *confidence* floor (0.5: a judge's answer at or above it
decides); the precision a judge's ``entailed`` is held to on development rows is
``verifier.judges.metrics.ENTAIL_PRECISION_FLOOR`` (0.88). The floor is the higher of
the two, so a calibrator is never held to less than a judge is; it is checked when one
is activated and again every time one is used.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import cast

from django.db.models import Exists, Max, OuterRef, QuerySet
from django.http import Http404

from verifier.judges import Judge, JudgeResult
from verifier.judges.metrics import ENTAIL_PRECISION_FLOOR
from verifier.judges.reading import judge_reading
from verifier.judges.reviewer_calibrator import (
    CalibratedAnswer,
    Calibrator,
    calibrated_answers,
    precision_lower_bound,
)
from verifier.models import (
    CalibratorChangeJob,
    CalibratorStatus,
    Claim,
    JudgeCalibrator,
    Verdict,
    Workspace,
)
from verifier.selectors.claim_state import claims_binding_checks, claims_state_inputs
from verifier.selectors.jobs import UNFINISHED
from verifier.selectors.judge_items import PreparedClaim, claims_judge_items
from verifier.state_policy import state_policy
from verifier.states import (
    HUMAN_DECISION_LABELS,
    HUMAN_DECISION_REASONS,
    NOT_STATED,
    ClaimState,
    StateReason,
    VerdictInput,
    resolve_state,
)
from verifier.states import VerdictLabel as StateVerdictLabel

# A human decision a calibrator learns from: the claim's state rests on it. True where
# the reviewer found the source states the claim, False where it contradicts it. A "not
# stated" decision is left out: the calibrator's other side answers "contradicted", and
# a span the reviewer found silent is no contradiction.
DECIDED_REASONS = {
    reason.value: said
    for reason, said in HUMAN_DECISION_REASONS.items()
    if reason is not StateReason.HUMAN_NOT_STATED
}
DECISION_LABELS = tuple(label for label in HUMAN_DECISION_LABELS if label != NOT_STATED)
DECIDED_STATES = (ClaimState.SUPPORTED.value, ClaimState.CONTRADICTED.value)


def calibrator_precision_floor() -> float:
    """The cross-validated precision for ``supported`` a calibrator needs to be activated
    or used: the higher of the state policy's confidence floor and the judges' entailment
    precision floor (module docstring)."""
    return max(state_policy().confidence_floor, ENTAIL_PRECISION_FLOOR)


def calibrator_refusal(row: JudgeCalibrator) -> str:
    """Why ``row`` may not decide anything ('' when it may)."""
    return supported_floor_refusal(
        precision=row.cv_supported_precision,
        threshold=row.params.get("supported_threshold"),
        decisions=row.training_size,
    )


def supported_floor_refusal(
    *, precision: float | None, threshold: float | None, decisions: int
) -> str:
    """Why a calibrator with this cross-validated precision for supported (and this
    supported threshold) may not decide anything under the floor in force; '' when it may."""
    floor = calibrator_precision_floor()
    if precision is None or threshold is None:
        return (
            f"its cross-validated precision for supported never reaches the floor "
            f"({floor:.2f}) on {decisions} decisions"
        )
    if precision < floor:
        return (
            f"its cross-validated precision for supported ({precision:.2f}) is below "
            f"the floor ({floor:.2f})"
        )
    return ""


def calibrator_calls_needed(floor: float | None = None) -> int:
    """The fewest out-of-fold "supported" calls, every one of them right, whose precision
    clears the floor (``floor``, else the one in force) on the lower end of its interval
    (``reviewer_calibrator.CONFIDENCE_Z``): what a calibrator below the floor needs at
    the least."""
    floor = calibrator_precision_floor() if floor is None else floor
    calls = 1
    while calls < 10_000 and precision_lower_bound(calls, calls) < floor:
        calls += 1
    return calls


def reading_refusal(row: JudgeCalibrator, *, prompt_version: int) -> str:
    """Why ``row`` may not read the judge's answers now ('' when it may): it learned
    from another version of the judge's reading (a judge's rules or prompt changed under
    the same model id), whose features it would misread."""
    if row.judge_prompt_version == int(prompt_version):
        return ""
    return (
        f"it learned from reading {row.judge_prompt_version} of {row.judge_model}, which now "
        f"reads with version {int(prompt_version)}: a new calibrator must be fitted"
    )


def calibrator_use_refusal(row: JudgeCalibrator, *, judge_model: str, prompt_version: int) -> str:
    """Why ``row`` would not decide anything with the configured judge ('' when it
    would): below the floor in force, or a calibrator of this judge that learned from
    another version of its reading."""
    refusal = calibrator_refusal(row)
    if refusal or row.judge_model != judge_model:
        return refusal
    return reading_refusal(row, prompt_version=prompt_version)


def calibrator_activation_refusal(
    *, row: JudgeCalibrator, judge_model: str, prompt_version: int
) -> str:
    """Why ``row`` may not be activated now ('' when it may): only a proposed one, at
    the precision floor, of the configured judge and its present reading."""
    if row.status != CalibratorStatus.PROPOSED:
        return f"{row} is {row.status}; only a proposed calibrator is activated."
    refusal = calibrator_refusal(row)
    if refusal:
        return f"{row} cannot be activated: {refusal}."
    if judge_model != row.judge_model:
        return (
            f"{row} calibrates {row.judge_model}, but the configured judge is {judge_model}: "
            "it would never be used."
        )
    stale = reading_refusal(row, prompt_version=prompt_version)
    if stale:
        return f"{row} cannot be activated: {stale}."
    return ""


@dataclass(frozen=True)
class CalibratorInUse:
    row: JudgeCalibrator
    calibrator: Calibrator


def calibrators_in_use(
    *, workspace_ids: Iterable[int], judge_model: str, prompt_version: int
) -> dict[int, CalibratorInUse]:
    """The active calibrator of ``judge_model`` per workspace, where it may decide (one
    indexed query). An active row below the floor in force, or fitted on another reading
    of the judge (``prompt_version``), is not used."""
    rows = JudgeCalibrator.objects.filter(
        workspace_id__in=list(workspace_ids),
        judge_model=judge_model,
        status=CalibratorStatus.ACTIVE,
    )
    return {
        row.workspace_id: CalibratorInUse(row, Calibrator.from_json(row.params))
        for row in rows
        if not calibrator_refusal(row) and not reading_refusal(row, prompt_version=prompt_version)
    }


def calibrator_list(
    *, workspace: Workspace, status: str | None = None, judge_model: str | None = None
) -> QuerySet[JudgeCalibrator]:
    """The workspace's calibrators (of ``status`` / ``judge_model`` when given), newest
    first."""
    rows = JudgeCalibrator.objects.filter(workspace=workspace)
    if status:
        rows = rows.filter(status=status)
    if judge_model:
        rows = rows.filter(judge_model=judge_model)
    return rows.select_related("created_by", "activated_by", "retired_by").order_by(
        "-created_at", "-id"
    )


def calibrator_get(*, workspace: Workspace, pk: int) -> JudgeCalibrator:
    """The workspace's calibrator, or the same 404 for a missing one and another's."""
    row = calibrator_list(workspace=workspace).filter(pk=pk).first()
    if row is None:
        raise Http404("No such calibrator in this workspace.")
    return row


def calibrator_active(*, workspace: Workspace, judge_model: str) -> JudgeCalibrator | None:
    return JudgeCalibrator.objects.filter(
        workspace=workspace, judge_model=judge_model, status=CalibratorStatus.ACTIVE
    ).first()


@dataclass(frozen=True)
class CurvePoint:
    version: int
    status: str
    decisions: int
    abstention: float | None  # judge + calibrator, out of fold
    entailed_precision: float | None
    judge_abstention: float | None  # the judge alone, on the same decisions
    supported_precision: float | None


def calibrator_curve(*, workspace: Workspace) -> dict[str, list[CurvePoint]]:
    """Per judge model, its calibrators in version order: decisions used → abstention and
    precision (the stored cross-validated figures of each fit)."""
    curves: dict[str, list[CurvePoint]] = {}
    rows = JudgeCalibrator.objects.filter(workspace=workspace).order_by("judge_model", "version")
    for row in rows:
        curves.setdefault(row.judge_model, []).append(
            CurvePoint(
                version=row.version,
                status=row.status,
                decisions=row.training_size,
                abstention=row.cv_abstention,
                entailed_precision=row.cv_entailed_precision,
                judge_abstention=row.judge_abstention,
                supported_precision=row.cv_supported_precision,
            )
        )
    return curves


# --- the decisions a calibrator learns from ---------------------------------------------


def calibrator_decided_claims(*, workspace: Workspace) -> list[tuple[Claim, bool]]:
    """The workspace's claims a reviewer decided (their state rests on it): True where
    the reviewer said supported, False where contradicted (not "not stated": see
    ``DECIDED_REASONS``); in id order."""
    claims = (
        Claim.objects.filter(workspace=workspace, state_reason__in=list(DECIDED_REASONS))
        .defer("embedding")
        .order_by("pk")
    )
    return [(claim, DECIDED_REASONS[claim.state_reason]) for claim in claims]


def calibrator_not_stated_claims(*, workspace: Workspace) -> int:
    """The workspace's claims a reviewer found "not stated by the source" (their state
    rests on it): decided, but not learned from (``DECIDED_REASONS``)."""
    return Claim.objects.filter(
        workspace=workspace, state_reason=StateReason.HUMAN_NOT_STATED.value
    ).count()


def _human_decisions(workspace_id: int) -> QuerySet[Verdict]:
    return Verdict.objects.filter(
        claim__workspace_id=workspace_id, reviewer__isnull=False, label__in=DECISION_LABELS
    )


def calibrator_decisions_through(*, workspace: Workspace) -> int:
    """The id of the workspace's latest human decision (0 without one)."""
    return int(_human_decisions(workspace.pk).aggregate(last=Max("id"))["last"] or 0)


def calibrator_new_decisions(*, workspace: Workspace, judge_model: str, prompt_version: int) -> int:
    """Human decisions in the workspace since its latest calibrator of ``judge_model``
    and its present reading (``prompt_version``) was fitted (all of them before the
    first: a new reading starts the count again)."""
    through = (
        JudgeCalibrator.objects.filter(
            workspace=workspace, judge_model=judge_model, judge_prompt_version=prompt_version
        ).aggregate(last=Max("decisions_through"))["last"]
        or 0
    )
    return _human_decisions(workspace.pk).filter(id__gt=through).count()


def calibrator_workspaces_with_decisions() -> list[Workspace]:
    """Workspaces with at least one human decision (the scheduled fit's candidates)."""
    decided = Verdict.objects.filter(
        claim__workspace_id=OuterRef("pk"), reviewer__isnull=False, label__in=DECISION_LABELS
    )
    return list(Workspace.objects.filter(Exists(decided)).order_by("pk"))


# --- what activating or deactivating does -----------------------------------------------


@dataclass(frozen=True)
class PlannedVerdict:
    """A verdict activation (or deactivation) appends to a claim."""

    prepared: PreparedClaim
    answer: CalibratedAnswer | JudgeResult  # the calibrator's, or the judge's restored
    calibrated: bool


@dataclass(frozen=True)
class Flip:
    """A claim whose state the change moves."""

    claim: Claim
    before: tuple[str, str]  # (state, reason) now
    after: tuple[str, str]  # (state, reason) once the verdict is appended
    judge_label: str
    judge_confidence: float
    answer_label: str  # what is appended
    calibrated: bool  # False: the judge's own answer, restored
    p_supported: float | None

    @property
    def was_decided(self) -> bool:
        """The claim was decided (supported or contradicted) before the change."""
        return self.before[0] in DECIDED_STATES


@dataclass(frozen=True)
class CalibratorPlan:
    scanned: int  # claims the judge read
    appends: list[PlannedVerdict]
    flips: list[Flip]

    @property
    def queued_decided(self) -> list[Flip]:
        """Claims not decided now that the change decides."""
        return [f for f in self.flips if not f.was_decided]

    @property
    def decided_changed(self) -> list[Flip]:
        """Claims decided now whose state the change moves."""
        return [f for f in self.flips if f.was_decided]


def calibrator_scope(*, workspace: Workspace, judge_model: str) -> QuerySet[Claim]:
    """Claims a calibrator of ``judge_model`` may answer for: judged by that model, not
    excluded, no human verdict (a reviewer's decision outranks any judge)."""
    judged = Verdict.objects.filter(
        claim=OuterRef("pk"), reviewer__isnull=True, judge_model=judge_model
    )
    human = Verdict.objects.filter(claim=OuterRef("pk"), reviewer__isnull=False)
    return (
        Claim.objects.filter(workspace=workspace, exclusion_reason="")
        .filter(Exists(judged))
        .exclude(Exists(human))
    )


def calibrator_scope_ids(
    *, workspace: Workspace, judge_model: str, after: int = 0, limit: int | None = None
) -> list[int]:
    """The ids of ``calibrator_scope``, in claim order: past claim ``after``, at most
    ``limit`` of them (all when None)."""
    ids = (
        calibrator_scope(workspace=workspace, judge_model=judge_model)
        .filter(pk__gt=after)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return list(ids if limit is None else ids[:limit])


def _latest_model_verdicts(ids: Sequence[int]) -> dict[int, Verdict]:
    rows = (
        Verdict.objects.filter(claim_id__in=list(ids), reviewer__isnull=True)
        .latest_per_claim()
        .only("id", "claim_id", "judge_model", "calibrator_id", "label", "confidence", "note")
    )
    return {v.claim_id: v for v in rows}


def _same(verdict: Verdict, answer: CalibratedAnswer, calibrator_id: int) -> bool:
    """Whether ``verdict`` already is this calibrator's ``answer``."""
    return (
        verdict.calibrator_id == calibrator_id
        and verdict.label == answer.label
        and abs(verdict.confidence - float(answer.confidence)) < 1e-6
    )


def calibrator_plan(
    *,
    workspace: Workspace,
    judge: Judge,
    in_use: CalibratorInUse | None,
    claims: Sequence[Claim] | None = None,
) -> CalibratorPlan:
    """What putting ``in_use`` in force (None: the plain judge, as deactivation does)
    does to the workspace's claims judged by ``judge``: the judge reads each claim's
    bound span again (the judging service's item building), the calibrator answers, and
    every claim whose latest model verdict is not that answer gets it appended
    (the calibrator's, or the judge's own where no calibrator answers but one answered
    before). ``flips``: the claims whose state that moves, with the state the state
    function gives them after (``resolve_state`` on the claim's inputs with the new
    verdict — what the state writer will store). ``claims``: the claims to consider
    (locked by the caller), else ``calibrator_scope_ids``."""
    judge_model = str(judge.model_id)
    if claims is None:
        ids = calibrator_scope_ids(workspace=workspace, judge_model=judge_model)
        claims = list(Claim.objects.filter(pk__in=ids).defer("embedding").order_by("pk"))
    latest = _latest_model_verdicts([c.pk for c in claims])
    claims = [c for c in claims if c.pk in latest and latest[c.pk].judge_model == judge_model]
    if not claims:
        return CalibratorPlan(0, [], [])
    checks = claims_binding_checks(claims=claims)
    prepared = [
        p
        for p in claims_judge_items(
            claims=claims, with_context=getattr(judge, "reads_context", False), checks=checks
        )
        if p.item is not None
    ]
    if not prepared:
        return CalibratorPlan(0, [], [])
    reading = judge_reading(judge, [p.item for p in prepared if p.item is not None])
    answers: list[CalibratedAnswer | None] = [None] * len(prepared)
    if in_use is not None and reading.names == in_use.calibrator.feature_names:
        answers = calibrated_answers(
            in_use.calibrator,
            reading.rows,
            reading.results,
            version=in_use.row.version,
            decided_floor=state_policy().confidence_floor,
        )
    appends: list[PlannedVerdict] = []
    for p, result, answer in zip(prepared, reading.results, answers, strict=True):
        current = latest[p.claim.pk]
        if answer is not None and in_use is not None:
            if not _same(current, answer, in_use.row.pk):
                appends.append(PlannedVerdict(p, answer, True))
        elif answer is None and current.calibrator_id is not None:
            appends.append(PlannedVerdict(p, result, False))  # the judge's answer restored
    inputs = claims_state_inputs(claims=[a.prepared.claim for a in appends], checks=checks)
    policy = state_policy()
    results = {r.key: r for r in reading.results}
    flips: list[Flip] = []
    for planned in appends:
        claim = planned.prepared.claim
        chosen = planned.answer
        now = replace(
            inputs[claim.pk][0],
            model_verdict=VerdictInput(
                cast(StateVerdictLabel, chosen.label), float(chosen.confidence), chosen.note
            ),
        )
        after = resolve_state(now, policy)
        if (after.state.value, after.reason.value) == (claim.state, claim.state_reason):
            continue
        judged = results[str(claim.pk)]
        flips.append(
            Flip(
                claim=claim,
                before=(claim.state, claim.state_reason),
                after=(after.state.value, after.reason.value),
                judge_label=judged.label,
                judge_confidence=judged.confidence,
                answer_label=chosen.label,
                calibrated=planned.calibrated,
                p_supported=chosen.p_supported if isinstance(chosen, CalibratedAnswer) else None,
            )
        )
    return CalibratorPlan(scanned=len(prepared), appends=appends, flips=flips)


# The activation page reads at most this many claims (the latest in scope) for its flip
# list, so that it answers in seconds; the change itself then reads every claim in scope
# in the background (``services.calibrator_change_jobs``).
PREVIEW_MAX_CLAIMS = 500


@dataclass(frozen=True)
class ActivationPreview:
    """What the activation page shows: the plan, or why there is none. ``in_scope``:
    claims the calibrator may answer for; ``read``: how many of them (the latest) the
    plan read — all of them when ``read == in_scope``."""

    plan: CalibratorPlan | None
    refusal: str
    in_scope: int = 0
    read: int = 0
    # The calibrator of the judge in force when the plan was drawn (activating retires
    # it); the confirmation carries back its id (``previewed_against``), and a change
    # since refuses the activation (``services.judge_calibrators``).
    in_force: JudgeCalibrator | None = None

    @property
    def previewed_against(self) -> str:
        """The id of the calibrator in force when the plan was drawn ("" for none)."""
        return str(self.in_force.pk) if self.in_force is not None else ""

    @property
    def partial(self) -> bool:
        return self.read < self.in_scope


def calibrator_activation_preview(
    *, workspace: Workspace, row: JudgeCalibrator, judge: Judge, limit: int | None = None
) -> ActivationPreview:
    """The plan of activating ``row`` (the flip list) over the latest ``limit`` claims in
    its scope (``PREVIEW_MAX_CLAIMS`` unless given), or why it may not be activated."""
    refusal = calibrator_activation_refusal(
        row=row, judge_model=str(judge.model_id), prompt_version=int(judge.prompt_version)
    )
    if refusal:
        return ActivationPreview(None, refusal)
    # Read before the plan: an activation while it is drawn is then refused on confirming.
    in_force = calibrator_active(workspace=workspace, judge_model=row.judge_model)
    scope = calibrator_scope(workspace=workspace, judge_model=str(judge.model_id))
    in_scope = scope.count()
    latest = scope.defer("embedding").order_by("-pk")[: limit or PREVIEW_MAX_CLAIMS]
    claims = sorted(latest, key=lambda c: c.pk)
    in_use = CalibratorInUse(row, Calibrator.from_json(row.params))
    plan = calibrator_plan(workspace=workspace, judge=judge, in_use=in_use, claims=claims)
    return ActivationPreview(
        plan,
        "",
        in_scope=in_scope,
        read=len(claims),
        in_force=in_force,
    )


def calibrator_change_job_latest(*, calibrator: JudgeCalibrator) -> CalibratorChangeJob | None:
    """The latest background change of ``calibrator`` (its activation or deactivation)."""
    return calibrator.change_jobs.order_by("-pk").first()


def calibrator_changes_unfinished(
    *, calibrator_ids: Iterable[int]
) -> dict[int, CalibratorChangeJob]:
    """Per calibrator among ``calibrator_ids``: its latest change still queued or running."""
    jobs = CalibratorChangeJob.objects.filter(
        calibrator_id__in=list(calibrator_ids),
        status__in=UNFINISHED,
    ).order_by("pk")
    return {job.calibrator_id: job for job in jobs}


def calibrator_change_job_get(*, workspace: Workspace, job_id: int) -> CalibratorChangeJob:
    """The workspace's change job, or the same 404 for a missing one and another's."""
    job = (
        CalibratorChangeJob.objects.filter(workspace=workspace, pk=job_id)
        .select_related("calibrator")
        .first()
    )
    if job is None:
        raise Http404("No such calibrator change in this workspace.")
    return job


def calibrator_change_job_superseded_by(job: CalibratorChangeJob) -> CalibratorChangeJob | None:
    """A later change of the same workspace and judge, which ``job`` gives way to."""
    return (
        CalibratorChangeJob.objects.filter(
            workspace_id=job.workspace_id, judge_model=job.judge_model, pk__gt=job.pk
        )
        .order_by("pk")
        .first()
    )
