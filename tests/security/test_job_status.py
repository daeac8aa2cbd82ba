"""A job whose judge never answered does not report plain success."""

from __future__ import annotations

from tests.verifier.api.conftest import client_for
from tests.verifier.pipeline.conftest import DOC_A
from verifier.models import IngestStatus


def test_a_job_whose_judge_was_unreachable_is_degraded(
    workspace, reviewer_client, unreachable_judge, run_job
):
    job = run_job(workspace, docs={"source:delta": DOC_A})
    assert job.status == IngestStatus.DEGRADED
    gaps = job.quality_report["quality"]["coverage_gaps"]
    assert gaps and gaps == job.quality_report["claims"]
    [warning] = job.warnings
    assert warning["code"] == "coverage_gaps" and warning["count"] == gaps
    assert "transport_error" in warning["message"]
    assert sum(c["count"] for c in warning["causes"]) == gaps

    body = client_for(workspace).get(f"/connect/v1/ingest-jobs/{job.pk}").json()
    assert body["status"] == "degraded" and body["warnings"] == job.warnings

    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert "degraded" in page and f"{gaps} claims were not judged" in page


def test_a_fully_judged_job_still_succeeds_without_warnings(workspace, run_job):
    job = run_job(workspace, docs={"source:delta": DOC_A})
    assert job.quality_report["quality"]["coverage_gaps"] == 0
    assert job.status == IngestStatus.SUCCEEDED and job.warnings == []
