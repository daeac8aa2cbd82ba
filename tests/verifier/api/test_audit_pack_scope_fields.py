"""A pack's scope reads its own fields only: a field another scope reads (``state`` on a
trace pack, ``trace`` on a claims pack) is refused by name, not dropped, so no client
believes it filtered a pack that holds everything (found by fuzzing the API against its
schema: ``?scope=claims&trace=0`` exported every claim)."""

from __future__ import annotations

import json
import uuid

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.verifier.api.conftest import judged_claim
from verifier.models import AuditPackJob

pytestmark = pytest.mark.django_db

TRACE = str(uuid.UUID(int=7))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        (f"scope=claims&trace={TRACE}", "trace"),
        ("trace=0", "trace"),  # the default scope is claims
        (f"scope=trace&trace={TRACE}&state=supported", "state"),
        ("scope=source&source=source:marrow_river&q=Sediment", "q"),
        ("scope=source&source=source:marrow_river&job=3", "job"),
        ("scope=ingest_job&job=3&source=source:marrow_river", "source"),
        ("scope=verification_job&job=3&reason=entailed", "reason"),
    ],
)
def test_a_field_its_scope_does_not_read_is_refused_by_name(api, delta, query, field):
    response = api.get(f"/connect/v1/audit-pack?{query}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_scope", {"field": field})
    assert f"'{field}'" in error["message"]


def test_a_job_with_such_a_field_is_refused_and_nothing_is_stored(api, delta):
    response = api.post(
        "/connect/v1/audit-pack/jobs",
        {"scope": "source", "source": delta.ref, "state": "supported"},
        content_type="application/json",
    )
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_scope", {"field": "state"})
    assert error["message"] == (
        "A source pack does not read 'state' (it reads source); leave it out."
    )
    assert not AuditPackJob.objects.exists()


def test_the_fields_each_scope_reads_still_make_a_pack(api, delta):
    judged_claim(delta, "Sediment settles where the current slows.", quote="Sediment settles")
    for query in (
        "scope=claims&state=supported&source=source:marrow_river&q=Sediment",
        "scope=source&source=source:marrow_river",
    ):
        response = api.get(f"/connect/v1/audit-pack?{query}")
        assert response.status_code == 200, (query, response.content[:300])
    made = api.post(
        "/connect/v1/audit-pack/jobs",
        {"scope": "claims", "state": "supported", "q": "Sediment"},
        content_type="application/json",
    )
    assert made.status_code == 202, made.content[:300]


def test_the_schema_says_a_trace_is_a_uuid():
    schema = json.loads(
        json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str)
    )
    params = {
        p["name"]: p["schema"]
        for p in schema["paths"]["/connect/v1/audit-pack"]["get"]["parameters"]
    }
    assert params["trace"]["format"] == "uuid"
    job = schema["components"]["schemas"]["AuditPackJobRequest"]["properties"]["trace"]
    assert job["format"] == "uuid"
