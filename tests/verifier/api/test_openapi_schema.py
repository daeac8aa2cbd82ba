"""The OpenAPI schema generates without warnings (a clashing component name silently
produces a wrong schema) and documents the claim verification operations."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/connect/v1/claims/verify:" in text
    assert "ClaimVerifyRequest" in text and "ClaimVerifyResult" in text


def _schema() -> dict:
    import json

    from drf_spectacular.generators import SchemaGenerator

    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(raw, default=str))


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


ERROR_REF = {"$ref": "#/components/schemas/Error"}


@pytest.mark.django_db
def test_every_operation_lists_the_errors_it_can_answer_with_the_error_body():
    schema = _schema()
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    assert error["properties"]["error"]["required"] == ["code", "message", "details"]
    for path, method, operation in _operations(schema):
        responses = operation["responses"]
        where = {p["in"] for p in operation.get("parameters", [])}
        expected = {"401", "403", "429"}
        # every GET reads its query string strictly (``?foo=1`` is a 400 unknown_field)
        if "requestBody" in operation or "query" in where or method == "get":
            expected.add("400")
        if "path" in where:
            expected.add("404")
        assert expected <= set(responses), (method, path, sorted(responses))
        for status, response in responses.items():
            if status[0] in "45":
                body = response["content"]["application/json"]["schema"]
                assert body == ERROR_REF, (method, path, status)
    conflicts = {
        (path, method) for path, method, op in _operations(schema) if "409" in op["responses"]
    }
    assert conflicts == {
        ("/connect/v1/sources", "post"),
        ("/connect/v1/ingest-jobs", "post"),
        ("/connect/v1/webhooks", "post"),
        ("/connect/v1/claims/verify", "post"),
        ("/connect/v1/memory/transcripts", "post"),
        ("/connect/v1/ingest-jobs/{job_id}/cancel", "post"),
        ("/connect/v1/audit-pack/jobs/{job_id}/download", "get"),
    }
    verify = schema["paths"]["/connect/v1/claims/verify"]["post"]["responses"]["400"]
    assert "no_claim_accepted" in verify["description"]


@pytest.mark.django_db
def test_turning_a_webhook_off_is_documented_as_200_with_the_webhook():
    responses = _schema()["paths"]["/connect/v1/webhooks/{webhook_id}"]["delete"]["responses"]
    assert "204" not in responses
    body = responses["200"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Webhook"}


@pytest.mark.django_db
def test_worker_verify_documents_the_body_it_answers(api, delta):
    """The 200 of /worker/verify is typed (``WorkerVerifyResponse``) and declares exactly
    the keys a real answer holds, its evidence items' included."""
    from django.test import TestCase

    from tests.verifier.api.conftest import judged_claim
    from verifier.api.worker import WorkerEvidenceSerializer, WorkerVerifyResponseSerializer

    operation = _schema()["paths"]["/worker/verify"]["post"]
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/WorkerVerifyResponse"}
    text = "Sediment settles where the current slows."
    judged_claim(delta, text, quote=text)
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = api.post(
            "/worker/verify", {"job_id": "j1", "claim": text}, content_type="application/json"
        )
    assert response.status_code == 200, response.content[:300]
    answer = response.json()
    assert set(answer) == set(WorkerVerifyResponseSerializer().fields)
    assert answer["evidence"]
    assert set(answer["evidence"][0]) == set(WorkerEvidenceSerializer().fields)


@pytest.mark.django_db
def test_a_get_that_reads_no_parameter_answers_the_400_its_schema_lists(api, delta):
    """``GET /connect/v1/workspace`` reads no query parameter but ``format``: another is a
    400 unknown_field, a status its operation must list (docs/api.md, "Conventions")."""
    response = api.get("/connect/v1/workspace?foo=1")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unknown_field"
    operation = _schema()["paths"]["/connect/v1/workspace"]["get"]
    assert "400" in operation["responses"]


@pytest.mark.django_db
def test_registering_a_webhook_twice_answers_the_409_its_schema_lists(api):
    body = {
        "url": "https://93.184.216.40/spanproof",
        "secret": "s" * 20,
        "events": ["verification.completed"],
    }
    first = api.post("/connect/v1/webhooks", body, content_type="application/json")
    assert first.status_code == 201, first.content[:300]
    again = api.post("/connect/v1/webhooks", body, content_type="application/json")
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "webhook_exists"
    responses = _schema()["paths"]["/connect/v1/webhooks"]["post"]["responses"]
    assert "webhook_exists" in responses["409"]["description"]
