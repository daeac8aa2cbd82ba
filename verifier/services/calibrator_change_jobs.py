"""Bringing a workspace's claims in line with the calibrator in force, in the background.

Activating or deactivating a reviewer calibrator (``services.judge_calibrators``) changes
its status at once — new verdicts of its judge pass through whichever calibrator is
active from that moment — and makes a :class:`CalibratorChangeJob`. The job reads the
workspace's claims in the calibrator's scope again, ``CHUNK`` at a time in claim order:
each chunk in its own transaction, under its claims' row locks, planned with
``calibrator_plan`` (the same plan as the activation page's flip list) against the
calibrator in force *now*, its verdicts appended and its states refreshed through the one
state writer. The request that activates answers at once however large the workspace is;
reviewers wait on a chunk's locks, never on the whole workspace's.

Running a job again is safe: a chunk appends only where the latest model verdict is not
already the answer in force, and the job goes on after ``done_through``. A later change
of the same workspace and judge supersedes a job that has not finished (it stops at its
next chunk). The watchdog (:func:`calibrator_change_jobs_watch`) re-enqueues a job
whose worker went silent, as for the other jobs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from verifier.engine import get_judge
from verifier.judges import Judge
from verifier.models import (
    CalibratorChangeAction,
    CalibratorChangeJob,
    CalibratorChangeJobStatus,
    Claim,
    JudgeCalibrator,
    Workspace,
)
from verifier.selectors.calibrators import (
    calibrator_change_job_superseded_by,
    calibrator_plan,
    calibrator_scope,
    calibrator_scope_ids,
    calibrators_in_use,
)
from verifier.services.claim_state import ClaimStates
from verifier.services.enqueue import RUN_CALIBRATOR_CHANGE_JOB, task_enqueue_on_commit
from verifier.services.job_heartbeat import (
    job_heartbeat,
    leased_job_take,
)
from verifier.services.job_watch import WatchReport, jobs_watch
from verifier.services.verdicts import verdict_build, verdicts_append

logger = logging.getLogger(__name__)

CHUNK = 200  # claims read, locked and written per transaction


def calibrator_change_job_create(
    *, calibrator: JudgeCalibrator, action: CalibratorChangeAction, cause: str, actor: Any
) -> CalibratorChangeJob:
    """Record a change to bring the claims in line with and enqueue it once the caller's
    transaction commits. Any unfinished change of the same workspace and judge gives way
    to it at its next chunk."""
    job = CalibratorChangeJob.objects.create(
        workspace=calibrator.workspace,
        calibrator=calibrator,
        action=action,
        judge_model=calibrator.judge_model,
        cause=cause[:200],
        created_by=actor,
        total=calibrator_scope(
            workspace=calibrator.workspace, judge_model=calibrator.judge_model
        ).count(),
    )
    task_enqueue_on_commit(RUN_CALIBRATOR_CHANGE_JOB, job.pk)
    return job


@dataclass(frozen=True)
class ChunkResult:
    read: int  # claims read
    appended: int  # verdicts appended
    moved: int  # claims whose state or reason changed


def calibrator_chunk_apply(
    *, workspace: Workspace, judge: Judge, ids: list[int], cause: str, actor: Any
) -> ChunkResult:
    """Lock the claims ``ids``, plan them against the calibrator of ``judge`` in force
    now (None: the plain judge) and apply the plan: append its verdicts and refresh the
    claims' states through the state writer (one state event per moved claim, with
    ``cause``). The caller holds a transaction."""
    # the judging service's own choice: the active row, unless below the floor in force
    # or learned from another reading of the judge (then the plain judge answers)
    in_use = calibrators_in_use(
        workspace_ids=[workspace.pk],
        judge_model=str(judge.model_id),
        prompt_version=int(judge.prompt_version),
    ).get(workspace.pk)
    states = ClaimStates(ids=ids)
    plan = calibrator_plan(workspace=workspace, judge=judge, in_use=in_use, claims=states.locked)
    verdicts = [
        verdict_build(
            claim=planned.prepared.claim,
            binding=planned.prepared.binding,
            judge_model=str(judge.model_id),
            judge_family=str(judge.family),
            prompt_version=int(judge.prompt_version),
            label=planned.answer.label,
            confidence=planned.answer.confidence,
            note=planned.answer.note,
            calibrator=in_use.row if (in_use is not None and planned.calibrated) else None,
        )
        for planned in plan.appends
    ]
    verdicts_append(verdicts=verdicts)
    claims: list[Claim] = [p.prepared.claim for p in plan.appends]
    if claims:
        states.refresh(
            claims=claims, causes=dict.fromkeys((c.pk for c in claims), cause[:200]), actor=actor
        )
    return ChunkResult(len(ids), len(verdicts), states.flush())


def _finish(job: CalibratorChangeJob, status: CalibratorChangeJobStatus, error: str = "") -> None:
    CalibratorChangeJob.objects.filter(pk=job.pk, runner=job.runner).update(
        status=status, error=error[:2000], finished_at=timezone.now(), runner=""
    )


def calibrator_change_job_run(*, job_id: int, judge: Judge | None = None) -> CalibratorChangeJob:
    """Run a queued change to its end, chunk by chunk. A finished job, or one a live
    worker holds, is left alone; an interrupted one goes on after ``done_through``."""
    job, taken = leased_job_take(
        CalibratorChangeJob.objects.select_related("workspace", "created_by"), job_id
    )
    if not taken:
        return job
    judge = judge or get_judge()
    try:
        with job_heartbeat(model=CalibratorChangeJob, pk=job.pk, runner=job.runner):
            _run_chunks(job, judge)
    except Exception as exc:
        _finish(job, CalibratorChangeJobStatus.FAILED, f"{type(exc).__name__}: {exc}")
        logger.exception("calibrator change job %s failed", job.pk)
    job.refresh_from_db()
    return job


def _run_chunks(job: CalibratorChangeJob, judge: Judge) -> None:
    if str(judge.model_id) != job.judge_model:
        _finish(
            job,
            CalibratorChangeJobStatus.FAILED,
            f"the configured judge is {judge.model_id} now, not {job.judge_model}: its "
            "claims were left as they are",
        )
        return
    ours = CalibratorChangeJob.objects.filter(pk=job.pk, runner=job.runner)
    while True:
        with transaction.atomic():
            current = ours.select_for_update().first()
            if current is None:  # the watchdog gave the job to another worker
                return
            later = calibrator_change_job_superseded_by(current)
            if later is not None:
                _finish(
                    job,
                    CalibratorChangeJobStatus.SUPERSEDED,
                    f"superseded by the {later.get_action_display().lower()} of "
                    f"{later.calibrator} (job {later.pk})",
                )
                return
            ids = calibrator_scope_ids(
                workspace=job.workspace,
                judge_model=job.judge_model,
                after=current.done_through,
                limit=CHUNK,
            )
            if not ids:
                _finish(job, CalibratorChangeJobStatus.SUCCEEDED)
                return
            done = calibrator_chunk_apply(
                workspace=job.workspace,
                judge=judge,
                ids=ids,
                cause=job.cause,
                actor=job.created_by,
            )
            ours.update(
                done=F("done") + done.read,
                done_through=ids[-1],
                appended=F("appended") + done.appended,
                moved=F("moved") + done.moved,
                heartbeat_at=timezone.now(),
            )


def calibrator_change_jobs_watch(*, now: datetime | None = None) -> WatchReport:
    """The jobs' watchdog (``services.job_watch``) for calibrator changes. Safe: a job goes
    on after its last finished chunk."""
    return jobs_watch(
        model=CalibratorChangeJob, task=RUN_CALIBRATOR_CHANGE_JOB, what="calibrator change", now=now
    )
