"""Celery tasks: thin wrappers that take ids and call one service."""

from __future__ import annotations

from celery import shared_task

from verifier.services.audit_pack import audit_pack_job_run
from verifier.services.audit_pack_job_watch import audit_pack_jobs_watch
from verifier.services.calibrator_change_jobs import (
    calibrator_change_job_run,
    calibrator_change_jobs_watch,
)
from verifier.services.claim_verification import verification_job_run
from verifier.services.enqueue import (
    EXCLUDE_CANCELLED_CLAIMS,
    RECLASS_CLAIMS,
    RUN_AUDIT_PACK_JOB,
    RUN_CALIBRATOR_CHANGE_JOB,
    RUN_VERIFICATION_JOB,
)
from verifier.services.ingest import ingest_job_cancelled_claims_exclude
from verifier.services.ingest_watch import ingest_jobs_watch
from verifier.services.judge_calibrators import judge_calibrators_fit_due
from verifier.services.quality_reclass import claims_reclass
from verifier.services.traces import traces_purge_expired
from verifier.services.verification_job_watch import verification_jobs_watch


# --- provenance traces (Connect API) --------------------------------------------------
@shared_task(name="verifier.pipeline.tasks.purge_expired_traces")
def purge_expired_traces() -> int:
    """Beat task: delete traces older than SPANPROOF_TRACE_RETENTION_DAYS (90)."""
    return traces_purge_expired()


# --- reviewer calibrators ----------------------------------------------------------------
@shared_task(name="verifier.pipeline.tasks.fit_judge_calibrators")
def fit_judge_calibrators() -> list[int]:
    """Beat task: propose a reviewer calibrator for every workspace with enough new human
    decisions (``services.judge_calibrators.judge_calibrators_fit_due``)."""
    return [row.pk for row in judge_calibrators_fit_due()]


@shared_task(name=RECLASS_CLAIMS)
def reclass_claims(workspace_id: int, domain_pack: str) -> int:
    """Re-class the claims of a domain pack under the rule set an admin just put in force
    (``services.quality_reclass``)."""
    return claims_reclass(workspace_id=workspace_id, domain_pack=domain_pack)


@shared_task(name=RUN_CALIBRATOR_CHANGE_JOB)
def run_calibrator_change_job(job_id: int) -> str:
    """Bring a workspace's claims in line with the calibrator an admin just activated or
    deactivated (``services.calibrator_change_jobs``)."""
    return calibrator_change_job_run(job_id=job_id).status


@shared_task(name="verifier.pipeline.tasks.watch_calibrator_change_jobs")
def watch_calibrator_change_jobs() -> dict[str, list[int]]:
    """Beat task: the jobs' watchdog for calibrator changes
    (``services.calibrator_change_jobs.calibrator_change_jobs_watch``)."""
    report = calibrator_change_jobs_watch()
    return {"requeued": report.requeued, "failed": report.failed}


# --- claim verification batches (Connect API) ----------------------------------------
@shared_task(name=RUN_VERIFICATION_JOB)
def run_verification_job(job_id: int) -> str:
    """Verify a background batch of submitted claims (``POST /connect/v1/claims/verify``)."""
    return verification_job_run(job_id=job_id).status


# --- ingest jobs ------------------------------------------------------------------------
@shared_task(name=EXCLUDE_CANCELLED_CLAIMS)
def exclude_cancelled_claims(job_id: int) -> int:
    """Exclude a cancelled ingest job's claims never judged, in batches; safe to rerun
    (``services.ingest.ingest_job_cancelled_claims_exclude``)."""
    return ingest_job_cancelled_claims_exclude(job_id=job_id)


# --- ingest job watchdog ---------------------------------------------------------------
@shared_task(name="verifier.pipeline.tasks.watch_ingest_jobs")
def watch_ingest_jobs() -> dict[str, list[int]]:
    """Beat task: re-enqueue stages whose worker went silent; fail jobs that keep losing
    them (``services.ingest_watch``)."""
    report = ingest_jobs_watch()
    return {"requeued": report.requeued, "failed": report.failed, "excluding": report.excluding}


@shared_task(name="verifier.pipeline.tasks.watch_verification_jobs")
def watch_verification_jobs() -> dict[str, list[int]]:
    """Beat task: the same for background verification jobs
    (``services.verification_job_watch``)."""
    report = verification_jobs_watch()
    return {"requeued": report.requeued, "failed": report.failed}


# --- audit packs -----------------------------------------------------------------------
@shared_task(name=RUN_AUDIT_PACK_JOB)
def run_audit_pack_job(job_id: int) -> str:
    """Export a background audit pack (``services.audit_pack``)."""
    return audit_pack_job_run(job_id=job_id).status


@shared_task(name="verifier.pipeline.tasks.watch_audit_pack_jobs")
def watch_audit_pack_jobs() -> dict[str, list[int]]:
    """Beat task: the same watchdog for audit-pack exports
    (``services.audit_pack_job_watch``)."""
    report = audit_pack_jobs_watch()
    return {"requeued": report.requeued, "failed": report.failed}
