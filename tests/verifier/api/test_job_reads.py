"""Job reads answer one shape: ids are integers wherever a job is named, a field with
nothing in it is null (not an empty string), and a cancel answers the job as a read of
it does. The schema says so too."""

from __future__ import annotations

import json

import pytest
from drf_spectacular.generators import SchemaGenerator

from verifier.models import IngestItem, IngestJob, VerificationJob


def _schema_component(name: str) -> dict:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(raw, default=str))["components"]["schemas"][name]


def _verify_as_job(api, source, **extra):
    body = {
        "claims": [{"text": "Sediment settles where the current slows.", "source": source.ref}],
        "wait": 0,
        **extra,
    }
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    assert response.status_code == 202, response.content
    return response.json()["job"]


def test_a_verification_job_without_a_policy_answers_null(api, delta):
    job = _verify_as_job(api, delta)
    assert job["policy"] is None
    assert VerificationJob.objects.get(pk=job["id"]).policy == ""  # stored as it was
    read = api.get(job["url"]).json()["job"]
    assert read["policy"] is None and read["id"] == job["id"]


def test_a_verification_job_with_a_policy_answers_its_name(api, delta):
    job = _verify_as_job(api, delta, policy="strict")
    assert job["policy"] == "strict"
    assert api.get(job["url"]).json()["job"]["policy"] == "strict"


@pytest.mark.django_db
def test_the_schema_says_a_jobs_policy_may_be_null():
    policy = _schema_component("VerificationJob")["properties"]["policy"]
    assert policy["type"] == "string" and policy.get("nullable") is True


@pytest.mark.parametrize(
    "body",
    [
        {"scope": "ingest_job"},
        {"scope": "claims", "state": "supported"},  # the claim list's job filter
    ],
)
def test_an_audit_pack_job_names_its_job_by_integer_id(api, workspace, delta, body):
    ingest_job = IngestJob.objects.create(workspace=workspace)
    sent = {**body, "job": ingest_job.pk}
    made = api.post("/connect/v1/audit-pack/jobs", sent, content_type="application/json")
    assert made.status_code == 202, made.content
    assert made.json()["scope"] == sent
    read = api.get(f"/connect/v1/audit-pack/jobs/{made.json()['id']}").json()
    assert read["scope"] == sent and read["scope"]["job"] == ingest_job.pk
    # the same integer id the ingest job's own read gives
    assert api.get(f"/connect/v1/ingest-jobs/{ingest_job.pk}").json()["id"] == ingest_job.pk


def test_an_audit_pack_job_of_a_source_answers_its_ref(api, delta):
    sent = {"scope": "source", "source": delta.ref}
    made = api.post("/connect/v1/audit-pack/jobs", sent, content_type="application/json")
    assert made.status_code == 202, made.content
    assert made.json()["scope"] == sent


@pytest.mark.django_db
def test_the_schema_gives_an_audit_pack_jobs_scope_its_fields():
    scope = _schema_component("AuditPackJob")["properties"]["scope"]
    assert scope.get("$ref") == "#/components/schemas/AuditPackScope" or scope.get("allOf") == [
        {"$ref": "#/components/schemas/AuditPackScope"}
    ]
    fields = _schema_component("AuditPackScope")["properties"]
    assert fields["job"]["type"] == "integer"


def test_a_cancel_answers_the_jobs_progress_as_its_read_does(api, workspace):
    job = IngestJob.objects.create(
        workspace=workspace,
        status="running",
        stage="extract",
        progress={"extract": {"done": 1, "total": 2, "failed": 0, "completed": ["a"]}},
    )
    IngestItem.objects.create(job=job, stage="extract", key="a", position=0, status="done")
    IngestItem.objects.create(job=job, stage="extract", key="b", position=1, status="pending")
    first = api.post(f"/connect/v1/ingest-jobs/{job.pk}/cancel")
    assert first.status_code == 200, first.content
    assert first.json()["progress"] == {"extract": {"done": 1, "total": 2, "failed": 0}}
    assert first.json() == api.get(f"/connect/v1/ingest-jobs/{job.pk}").json()
    again = api.post(f"/connect/v1/ingest-jobs/{job.pk}/cancel")
    assert again.status_code == 200 and again.json() == first.json()
