"""Background audit-pack exports: a job whose worker went silent is exported again by the
watchdog, or fails with the reason; a live worker's job is never doubled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_source
from tests.verifier.api.conftest import judged_claim
from verifier.audit_pack.check import check_pack, render_report
from verifier.audit_pack.scope import PackScope
from verifier.models import AuditPackJob
from verifier.services.audit_pack import audit_pack_file, audit_pack_job_create
from verifier.services.audit_pack_job_watch import audit_pack_jobs_watch

pytestmark = pytest.mark.django_db
QUOTE = "Sediment settles where the current slows."


@pytest.fixture
def job(workspace, settings, tmp_path):
    settings.SPANPROOF_JOB_STALE_SECONDS = 60
    settings.SPANPROOF_JOB_MAX_ATTEMPTS = 3
    settings.SPANPROOF_AUDIT_PACK_DIR = tmp_path / "packs"
    source = make_source(workspace, ref="source:delta", text=f"{QUOTE} More text.")
    judged_claim(source, QUOTE, quote=QUOTE)
    return audit_pack_job_create(
        workspace=workspace, scope=PackScope(kind="claims"), exported_by={"role": "admin"}
    )  # on_commit never fires here: the job stays queued


def _silent(job, *, seconds: int = 120) -> None:
    """What a killed worker leaves: the lease held, the heartbeat stopped."""
    AuditPackJob.objects.filter(pk=job.pk).update(
        status="running",
        runner="dead-worker",
        heartbeat_at=timezone.now() - timedelta(seconds=seconds),
    )


def test_a_silent_export_runs_again_and_succeeds(job, django_capture_on_commit_callbacks):
    _silent(job)
    with django_capture_on_commit_callbacks(execute=True):
        report = audit_pack_jobs_watch()
    assert report.requeued == [job.pk] and report.failed == []
    job.refresh_from_db()
    assert (job.status, job.attempts, job.runner, job.done, job.total) == (
        "succeeded",
        1,
        "",
        1,
        1,
    )
    result = check_pack(audit_pack_file(job))
    assert result.ok, render_report(result)


def test_a_live_workers_export_is_left_alone(job, django_capture_on_commit_callbacks):
    _silent(job, seconds=5)
    with django_capture_on_commit_callbacks(execute=True):
        report = audit_pack_jobs_watch()
    assert report.requeued == [] and report.failed == []
    job.refresh_from_db()
    assert (job.status, job.runner) == ("running", "dead-worker")


def test_an_export_that_keeps_losing_workers_fails_with_the_reason(job):
    AuditPackJob.objects.filter(pk=job.pk).update(attempts=2)
    _silent(job)
    report = audit_pack_jobs_watch()
    assert report.failed == [job.pk]
    job.refresh_from_db()
    assert job.status == "failed" and job.attempts == 3
    assert "went silent 3 times" in job.error


def test_a_queued_export_no_worker_took_is_enqueued_again_uncounted(
    job, django_capture_on_commit_callbacks
):
    AuditPackJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - timedelta(seconds=120)
    )
    with django_capture_on_commit_callbacks(execute=True):
        report = audit_pack_jobs_watch()
    assert report.requeued == [job.pk]
    job.refresh_from_db()
    assert job.status == "succeeded" and job.attempts == 0


def test_an_export_that_cannot_sign_fails_with_the_reason_and_leaves_no_file(
    job, settings, django_capture_on_commit_callbacks
):
    from verifier.services.audit_pack import audit_pack_job_run, signing_key_ensure

    signing_key_ensure(workspace=job.workspace)
    settings.SECRET_KEY = "a secret the key was not sealed with"
    settings.SECRET_KEY_FALLBACKS = []
    job = audit_pack_job_run(job_id=job.pk)
    assert job.status == "failed" and "SigningKeyUnavailable" in job.error
    assert list(settings.SPANPROOF_AUDIT_PACK_DIR.iterdir()) == []
