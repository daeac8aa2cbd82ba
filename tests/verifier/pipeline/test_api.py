from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.pipeline.conftest import DOC_A
from verifier.models import IngestJob
from verifier.services.sources import source_upsert


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def _post(api, body):
    return api.post("/connect/v1/ingest-jobs", body, content_type="application/json")


def test_create_then_poll_a_job(api, django_capture_on_commit_callbacks):
    body = {
        "label": "api",
        "sources": [{"ref": "source:delta", "text": DOC_A, "format": "markdown"}],
        "claims": [],
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(api, body)
    assert response.status_code == 202, response.json()
    job_id = response.json()["id"]
    job = api.get(f"/connect/v1/ingest-jobs/{job_id}").json()
    assert job["status"] == "succeeded" and job["stage"] == "store"
    assert job["progress"]["extract"] == {"done": 1, "total": 1, "failed": 0}
    assert job["quality_report"]["quality"]["g2"]["passed"] in (True, False, None)
    listed = api.get("/connect/v1/ingest-jobs").json()
    assert listed["results"][0]["id"] == job_id and listed["next"] is None
    cancel = api.post(f"/connect/v1/ingest-jobs/{job_id}/cancel")
    assert cancel.status_code == 409 and cancel.json()["error"]["code"] == "job_finished"
    error = cancel.json()["error"]
    assert error["message"] == (
        f"Job {job_id} has already finished (succeeded): nothing is left to cancel."
    )
    assert error["details"] == {"status": "succeeded"}


def test_cancel_a_queued_job(api):
    response = _post(api, {"sources": [{"ref": "source:d", "text": DOC_A}]})
    job_id = response.json()["id"]
    cancelled = api.post(f"/connect/v1/ingest-jobs/{job_id}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    # a retried cancel (the answer to the first was lost) answers the job as it is
    again = api.post(f"/connect/v1/ingest-jobs/{job_id}/cancel")
    assert again.status_code == 200 and again.json() == cancelled.json()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "empty_upload"),
        ({"sources": [{"text": DOC_A, "format": "pdf"}]}, "invalid_request"),
        ({"sources": [{"ref": "source:x", "text": "  "}]}, "empty_text"),
        ({"claims": [{"source_ref": "source:none", "text": "A claim."}]}, "unknown_source"),
    ],
)
def test_bad_input_gets_the_error_body(api, body, code):
    response = _post(api, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code


def test_other_workspace_job_is_404(api, other_workspace):
    job_id = _post(api, {"sources": [{"ref": "source:d", "text": DOC_A}]}).json()["id"]
    other = client_for(other_workspace)
    assert other.get(f"/connect/v1/ingest-jobs/{job_id}").status_code == 404
    assert other.post(f"/connect/v1/ingest-jobs/{job_id}/cancel").status_code == 404
    assert api.get("/connect/v1/ingest-jobs/999999").status_code == 404


def test_register_a_webhook(api):
    body = {"url": "http://127.0.0.1:9/h", "secret": "x" * 20, "events": ["job.completed"]}
    response = api.post("/connect/v1/webhooks", body, content_type="application/json")
    assert response.status_code == 201 and response.json()["threshold"] == 90
    bad = api.post(
        "/connect/v1/webhooks", {**body, "events": ["nope"]}, content_type="application/json"
    )
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_request"


def test_an_ingest_keeps_an_existing_sources_domain_pack_and_never_changes_it(api, workspace):
    source = source_upsert(
        workspace=workspace, ref="source:legal", text="Old text.", domain_pack="legal"
    ).source
    # No pack named: a new version of the source, still in its pack (as before).
    response = _post(api, {"sources": [{"ref": "source:legal", "text": DOC_A}]})
    assert response.status_code == 202, response.json()
    source.refresh_from_db()
    assert source.domain_pack == "legal" and source.versions.count() == 2
    # Another pack named: refused, and nothing stored.
    jobs = IngestJob.objects.count()
    response = _post(
        api,
        {"sources": [{"ref": "source:legal", "text": DOC_A + " More.", "domain_pack": "general"}]},
    )
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "domain_pack_conflict" and "cannot change" in error["message"]
    source.refresh_from_db()
    assert source.domain_pack == "legal" and source.versions.count() == 2
    assert IngestJob.objects.count() == jobs


def test_the_job_list_is_cursor_paginated_newest_first(api, workspace):
    from verifier.models import IngestJob

    ids = [IngestJob.objects.create(workspace=workspace).pk for _ in range(3)]
    first = api.get("/connect/v1/ingest-jobs?page_size=2").json()
    assert [j["id"] for j in first["results"]] == ids[:0:-1]
    second = api.get(first["next"]).json()
    assert [j["id"] for j in second["results"]] == ids[:1] and second["next"] is None
    bad = api.get("/connect/v1/ingest-jobs?cursor=bogus")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_cursor"


@pytest.mark.parametrize("size", ["abc", "-1", "0", "1.5", "٣"])
def test_a_page_size_that_is_not_a_whole_number_is_a_400(api, size):
    response = api.get("/connect/v1/ingest-jobs", {"page_size": size})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_request" and error["details"] == {"field": "page_size"}


def test_a_page_size_over_the_limit_is_served_at_the_limit(api, workspace):
    from verifier.models import IngestJob

    IngestJob.objects.bulk_create([IngestJob(workspace=workspace) for _ in range(201)])
    body = api.get("/connect/v1/ingest-jobs", {"page_size": "100000"}).json()
    assert len(body["results"]) == 200 and body["next"]
