"""A restarted worker takes back at once the verification batches, audit-pack exports,
calibrator changes and review send-backs to the judge its killed predecessor on this host
held (``worker_ready`` → ``services.job_reclaim``), under each kind's own watchdog rule;
never one a live worker or another host holds. (Ingest stages: ``test_ingest_reclaim.py``.)"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator

import pytest
from django.utils import timezone

from config.celery import reclaim_dead_leases
from review.services import review_bulk_rejudge, review_rejudge_job_run
from tests.factories import make_source, make_user
from tests.review.conftest import queue_claim
from tests.verifier.api.conftest import judged_claim
from verifier.audit_pack.scope import PackScope
from verifier.engine import get_judge
from verifier.models import (
    AuditPackJob,
    CalibratorChangeAction,
    CalibratorChangeJob,
    JudgeCalibrator,
    ReviewRejudgeJob,
    VerificationJob,
)
from verifier.models.jobs import LeasedJob
from verifier.services.audit_pack import audit_pack_job_create, audit_pack_job_run
from verifier.services.calibrator_change_jobs import (
    calibrator_change_job_create,
    calibrator_change_job_run,
)
from verifier.services.claim_verification import (
    ClaimSubmission,
    verification_job_create,
    verification_job_run,
)
from verifier.services.job_heartbeat import _host_tag
from verifier.services.job_reclaim import LEASED_JOBS, jobs_reclaim_dead_here, queued_grace

QUOTE = "Sediment settles where the current slows."


@pytest.fixture(autouse=True)
def _settings(settings, tmp_path):
    """The default stale period: a fresh heartbeat stays fresh for the whole test."""
    settings.SPANPROOF_JOB_STALE_SECONDS = 300
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3
    settings.SPANPROOF_AUDIT_PACK_DIR = tmp_path / "packs"


def _token(pid: int, host: str | None = None) -> str:
    return f"{pid}.{host or _host_tag()}.{uuid.uuid4().hex}"


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


@pytest.fixture
def dead_runner() -> str:
    """The lease token of a worker process of this host that was killed."""
    return _token(_dead_pid())


@pytest.fixture
def live_runner() -> Iterator[str]:
    """The lease token of a worker process of this host that still runs."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        yield _token(process.pid)
    finally:
        process.kill()
        process.wait()


def _verification_job(workspace) -> LeasedJob:
    source = make_source(workspace, ref="source:delta", text=f"{QUOTE} More text.")
    return verification_job_create(
        workspace=workspace,
        claims=[ClaimSubmission(text=QUOTE, source=source.ref)],
        enqueue=False,
    )


def _audit_pack_job(workspace) -> LeasedJob:
    source = make_source(workspace, ref="source:delta", text=f"{QUOTE} More text.")
    judged_claim(source, QUOTE, quote=QUOTE)
    return audit_pack_job_create(
        workspace=workspace, scope=PackScope(kind="claims"), exported_by={"role": "admin"}
    )  # outside a captured commit nothing runs: the job stays queued


def _calibrator_change_job(workspace) -> LeasedJob:
    calibrator = JudgeCalibrator.objects.create(
        workspace=workspace,
        judge_model=str(get_judge().model_id),
        version=1,
        params={},
        training_size=0,
        supported_decisions=0,
        contradicted_decisions=0,
        floor=0.9,
        cv_roc_auc=0.5,
    )
    return calibrator_change_job_create(
        calibrator=calibrator, action=CalibratorChangeAction.ACTIVATE, cause="test", actor=None
    )


def _review_rejudge_job(workspace) -> LeasedJob:
    source = make_source(workspace, ref="source:delta", text=f"{QUOTE} More text.")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    job = review_bulk_rejudge(claims=[queue_claim(source, "abstained")], reviewer=reviewer).job
    assert job is not None
    return job


MAKE: dict[str, Callable[..., LeasedJob]] = {
    "verification": _verification_job,
    "audit pack": _audit_pack_job,
    "calibrator change": _calibrator_change_job,
    "review send-back": _review_rejudge_job,
}
MODEL: dict[str, type[LeasedJob]] = {
    "verification": VerificationJob,
    "audit pack": AuditPackJob,
    "calibrator change": CalibratorChangeJob,
    "review send-back": ReviewRejudgeJob,
}


def _leased(job: LeasedJob, runner: str, *, attempts: int = 0) -> None:
    """The job running, leased to ``runner`` with a heartbeat seconds old."""
    type(job)._default_manager.filter(pk=job.pk).update(
        status="running", runner=runner, heartbeat_at=timezone.now(), attempts=attempts
    )


def test_every_leased_job_model_is_taken_back():
    assert {name for name, _, _ in LEASED_JOBS} == set(MAKE)
    assert {model for _, model, _ in LEASED_JOBS} == set(MODEL.values())


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MAKE))
def test_a_job_of_this_hosts_dead_worker_goes_on_when_a_worker_starts(
    kind, workspace, dead_runner, django_capture_on_commit_callbacks
):
    job = MAKE[kind](workspace)
    _leased(job, dead_runner)

    with django_capture_on_commit_callbacks(execute=True):
        reports = jobs_reclaim_dead_here()

    assert reports[kind].requeued == [job.pk] and reports[kind].failed == []
    job.refresh_from_db()
    assert (job.status, job.attempts, job.runner, job.error) == ("succeeded", 1, "", "")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MAKE))
@pytest.mark.parametrize("holder", ["live process", "other host"])
def test_a_job_a_live_worker_or_another_host_holds_is_left_alone(
    kind, holder, workspace, live_runner, django_capture_on_commit_callbacks
):
    job = MAKE[kind](workspace)
    runner = live_runner if holder == "live process" else _token(_dead_pid(), host="0" * 12)
    _leased(job, runner)
    before = MODEL[kind].objects.get(pk=job.pk)

    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        reports = jobs_reclaim_dead_here()

    assert reports[kind].requeued == [] and reports[kind].failed == [] and enqueued == []
    job.refresh_from_db()
    assert (job.status, job.runner, job.heartbeat_at, job.attempts) == (
        "running",
        runner,
        before.heartbeat_at,
        0,
    )


@pytest.mark.django_db
def test_a_job_whose_last_worker_died_here_fails_with_the_watchdogs_reason(workspace, dead_runner):
    job = _verification_job(workspace)
    _leased(job, dead_runner, attempts=2)

    reports = jobs_reclaim_dead_here()

    assert reports["verification"].failed == [job.pk]
    job.refresh_from_db()
    assert (job.status, job.attempts, job.runner) == ("failed", 3, "")
    assert "went silent 3 times" in job.error


@pytest.mark.django_db(transaction=True)
def test_the_worker_ready_handler_takes_back_a_dead_workers_verification_job(
    workspace, dead_runner
):
    job = _verification_job(workspace)
    _leased(job, dead_runner)

    reclaim_dead_leases()  # what a starting worker runs (tasks eager: the job runs)

    job.refresh_from_db()
    assert (job.status, job.done, job.attempts) == ("succeeded", 1, 1)


RUN: dict[str, Callable[..., LeasedJob]] = {
    "verification": verification_job_run,
    "audit pack": audit_pack_job_run,
    "calibrator change": calibrator_change_job_run,
    "review send-back": review_rejudge_job_run,
}


def _waiting_since(job: LeasedJob, seconds: float) -> None:
    """The job queued, no lease, created ``seconds`` ago and never heard from."""
    type(job)._default_manager.filter(pk=job.pk).update(
        status="queued",
        runner="",
        heartbeat_at=None,
        created_at=timezone.now() - timezone.timedelta(seconds=seconds),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MAKE))
def test_a_queued_job_whose_message_was_lost_is_sent_again_when_a_worker_starts(
    kind, workspace, django_capture_on_commit_callbacks
):
    """Queued past the grace period with no lease (the broker lost its message): a
    starting worker sends it again at once, uncounted, instead of the watchdog after the
    stale period (300 s here)."""
    job = MAKE[kind](workspace)
    _waiting_since(job, queued_grace().total_seconds() + 5)

    with django_capture_on_commit_callbacks(execute=True):
        reports = jobs_reclaim_dead_here()

    assert reports[kind].requeued == [job.pk] and reports[kind].failed == []
    job.refresh_from_db()
    assert (job.status, job.attempts, job.runner, job.error) == ("succeeded", 0, "", "")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MAKE))
def test_a_job_just_queued_is_not_sent_again(kind, workspace, django_capture_on_commit_callbacks):
    job = MAKE[kind](workspace)
    _waiting_since(job, 1)

    with django_capture_on_commit_callbacks(execute=True) as enqueued:
        reports = jobs_reclaim_dead_here()

    assert reports[kind].requeued == [] and enqueued == []
    job.refresh_from_db()
    assert (job.status, job.heartbeat_at) == ("queued", None)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(MAKE))
def test_the_message_sent_again_is_harmless_when_the_first_still_arrives(
    kind, workspace, live_runner, django_capture_on_commit_callbacks
):
    """The job was only waiting behind others: both messages arrive. Whichever comes
    second finds the job leased to a live worker, or finished, and does nothing."""
    job = MAKE[kind](workspace)
    _waiting_since(job, queued_grace().total_seconds() + 5)
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        jobs_reclaim_dead_here()
    assert len(enqueued) == 1  # the copy, not yet delivered

    _leased(job, live_runner)  # the first message's worker took the lease meanwhile
    leased = MODEL[kind].objects.get(pk=job.pk)
    enqueued[0]()  # the copy arrives: the live lease is left alone
    job.refresh_from_db()
    assert (job.status, job.runner, job.heartbeat_at, job.attempts) == (
        "running",
        live_runner,
        leased.heartbeat_at,
        0,
    )

    type(job)._default_manager.filter(pk=job.pk).update(runner="", heartbeat_at=None)
    RUN[kind](job_id=job.pk)  # the first message's run, to its end
    finished = MODEL[kind].objects.get(pk=job.pk)
    assert finished.status == "succeeded"
    RUN[kind](job_id=job.pk)  # one more copy after the end: nothing runs again
    again = MODEL[kind].objects.get(pk=job.pk)
    assert (again.status, again.finished_at, again.attempts) == (
        "succeeded",
        finished.finished_at,
        finished.attempts,
    )
