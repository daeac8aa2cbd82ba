"""Cancelling an ingest job leaves no claim waiting for a verdict nothing will give:
the claims it created but never judged are excluded with the reason (and a state
event), in the background once the cancel commits; the claims it judged keep their
states; an extractor that finishes after the cancel creates no claim."""

from __future__ import annotations

import pytest

from tests.verifier.pipeline.conftest import DOC_A, DOC_B
from verifier.models import Claim, IngestJob, IngestStatus, StateEvent
from verifier.services.ingest import (
    cancelled_exclusion_reason,
    ingest_job_cancel,
    ingest_stage_run,
)
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.ingest_extract import extract_item

pytestmark = pytest.mark.django_db


def _job(workspace, *docs: str) -> IngestJob:
    return ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref=f"source:{i}", text=doc) for i, doc in enumerate(docs)],
        start=False,
    )


def _run_until(job: IngestJob, last: str) -> None:
    stage = "extract"
    while True:
        following = ingest_stage_run(job_id=job.pk, stage=stage)
        if stage == last:
            return
        assert following is not None
        stage = following


@pytest.fixture
def cancel(django_capture_on_commit_callbacks):
    """Cancel as the console does, and run what the cancel enqueued on commit (the
    exclusion, eager as a worker would run it)."""

    def run(job: IngestJob) -> bool:
        with django_capture_on_commit_callbacks(execute=True):
            return ingest_job_cancel(job=job)

    return run


def test_cancel_after_extraction_excludes_the_claims_never_judged(workspace, cancel):
    job = _job(workspace, DOC_A)
    _run_until(job, "extract")
    created = list(Claim.objects.filter(ingest_job=job))
    assert created and all(c.state_reason == "not_judged" for c in created)

    assert cancel(job)

    reason = cancelled_exclusion_reason(job.pk)
    claims = Claim.objects.filter(ingest_job=job)
    assert claims.count() == len(created)
    assert set(claims.values_list("state", flat=True)) == {"excluded"}
    assert set(claims.values_list("exclusion_reason", flat=True)) == {reason}
    assert not claims.filter(published=True).exists()
    events = StateEvent.objects.filter(claim__in=claims, to_state="excluded")
    assert events.count() == len(created)
    assert all(reason in e.cause for e in events)


def test_cancel_after_validation_keeps_the_judged_claims_states(workspace, cancel):
    job = _job(workspace, DOC_A, DOC_B)
    _run_until(job, "validate")
    judged = dict(Claim.objects.filter(ingest_job=job).values_list("pk", "state"))
    assert judged and "excluded" not in judged.values()

    assert cancel(job)

    assert dict(Claim.objects.filter(ingest_job=job).values_list("pk", "state")) == judged
    job.refresh_from_db()
    assert job.status == IngestStatus.CANCELLED


def test_an_extractor_that_finishes_after_the_cancel_creates_no_claim(workspace):
    job = _job(workspace, DOC_A)
    version_id = job.payload["sources"][0]["version_id"]
    assert ingest_job_cancel(job=job)

    extract_item(job, f"version:{version_id}")  # the worker was mid-extraction

    assert not Claim.objects.filter(ingest_job=job).exists()


def test_cancelling_twice_excludes_nothing_more(workspace, cancel):
    job = _job(workspace, DOC_A)
    _run_until(job, "extract")
    assert cancel(job)
    before = StateEvent.objects.filter(claim__ingest_job=job).count()
    assert not cancel(job)
    assert StateEvent.objects.filter(claim__ingest_job=job).count() == before
