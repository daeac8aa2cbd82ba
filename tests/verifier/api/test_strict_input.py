"""The Connect API reads its input strictly (``verifier.api.strict_input``): an unknown
body field, top level or nested, is a 400 ``unknown_field`` naming its path; a JSON
value of the wrong type is refused, not coerced; a key or query parameter given twice
and a query parameter an endpoint does not read are refused; nothing is stored."""

from __future__ import annotations

import json

import pytest

from verifier.models import (
    AuditPackJob,
    Claim,
    IngestJob,
    MemoryTranscript,
    RagAudit,
    Source,
    Webhook,
)

pytestmark = pytest.mark.django_db

HARBOUR = {"ref": "source:harbour", "text": "The harbour wall was rebuilt in 1998."}
WEBHOOK = {
    "url": "https://93.184.216.40/vc",
    "secret": "0123456789abcdef",
    "events": ["job.completed"],
}
CHUNK = {"id": "c1", "text": "HNSW builds a proximity graph."}


def _post(api, url: str, body) -> dict:
    response = api.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content[:400]
    return response.json()["error"]


def _stored() -> dict[str, int]:
    models = (Source, Claim, IngestJob, Webhook, RagAudit, MemoryTranscript, AuditPackJob)
    return {m.__name__: m.objects.count() for m in models}


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        (
            "/connect/v1/claims/verify",
            {
                "claims": [
                    {"text": "The wall was rebuilt in 2004.", "source": "source:harbour"},
                    {"text": "It is long.", "source": "source:harbour", "qoute": "It is"},
                ],
                "sources": [HARBOUR],
            },
            "claims[1].qoute",
        ),
        (
            "/connect/v1/claims/verify",
            {"claims": [{"text": "x", "source": "source:harbour"}], "polcy": "strict"},
            "polcy",
        ),
        (
            "/connect/v1/claims/verify",
            {"claims": [{"text": "x", "source": "s"}], "sources": [{**HARBOUR, "titel": "t"}]},
            "sources[0].titel",
        ),
        ("/connect/v1/sources", {**HARBOUR, "domainpack": "medical"}, "domainpack"),
        ("/connect/v1/webhooks", {**WEBHOOK, "treshold": 10}, "treshold"),
        (
            "/connect/v1/ingest-jobs",
            {"sources": [{**HARBOUR, "domainpack": "medical"}], "lable": "x"},
            "lable",
        ),
        (
            "/connect/v1/ingest-jobs",
            {"sources": [{**HARBOUR, "domainpack": "medical"}]},
            "sources[0].domainpack",
        ),
        (
            "/connect/v1/ingest-jobs",
            {"claims": [{"source_ref": "s", "text": "t", "legacy": "true"}]},
            "claims[0].legacy",
        ),
        ("/connect/v1/rag/audit", {"answer": "A graph.", "chunks": [CHUNK], "x": 1}, "x"),
        (
            "/connect/v1/memory/verify",
            {"agent": "bot", "message": "I said hi.", "transcript_id": 1, "transcipt": []},
            "transcipt",
        ),
        ("/connect/v1/audit-pack/jobs", {"scope": "claims", "stat": "supported"}, "stat"),
    ],
)
def test_an_unknown_body_field_is_refused_naming_its_path(api, url, body, field):
    before = _stored()
    error = _post(api, url, body)
    assert error["code"] == "unknown_field", error
    assert error["details"]["field"] == field
    assert field.rsplit(".", 1)[-1] in error["message"] and "known" in error["message"]
    assert _stored() == before


def test_the_unknown_field_message_lists_the_known_ones_of_its_object(api):
    body = {"claims": [{"text": "x", "source": "source:harbour", "externalid": "e-1"}]}
    error = _post(api, "/connect/v1/claims/verify", body)
    assert error["message"] == (
        "Unknown field 'claims[0].externalid'; the known ones here are: text, source, quote, "
        "external_id, metadata."
    )


def test_a_cancel_takes_no_body(api, workspace):
    job = IngestJob.objects.create(workspace=workspace)
    error = _post(api, f"/connect/v1/ingest-jobs/{job.pk}/cancel", {"force": True})
    assert (error["code"], error["details"]) == ("unknown_field", {"field": "force"})
    job.refresh_from_db()
    assert job.status == "queued"


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/connect/v1/retrieve", {"query": "wall", "verification_policy": {"bogus": 1}}),
        ("/connect/v1/retrieve", {"query": "wall", "top_k": 5, "max_claims": "5"}),
        ("/connect/v1/rag/audit", {"answer": "A graph.", "chunks": [{**CHUNK, "score": 0.9}]}),
        (
            "/connect/v1/memory/transcripts",
            {"transcript": [{"speaker": "bot", "text": "Hi.", "message_id": "m-1"}]},
        ),
    ],
)
def test_the_seed_doors_and_data_records_read_what_they_know(api, url, body):
    """Retrieve (seed 000) reads as DRF does; a chunk's score and a turn's id are what a
    retriever or a chat log attaches, left alone (docs/api.md, "Conventions")."""
    response = api.post(url, body, content_type="application/json")
    assert response.status_code in {200, 201}, response.content[:300]


def test_worker_verify_keeps_reading_leniently(api):
    """Seed 001's endpoint ignores what it does not know (docs/worker-verify.md)."""
    body = {"job_id": "j1", "claim": "Sediment settles where the current slows.", "bogus": 1}
    response = api.post("/worker/verify", body, content_type="application/json")
    assert response.status_code == 200, response.content[:300]


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        ("/connect/v1/sources", {"ref": 123, "text": "num ref"}, "ref"),
        ("/connect/v1/sources", {"ref": "source:t2", "text": 12345}, "text"),
        ("/connect/v1/sources", {**HARBOUR, "title": 5}, "title"),
        ("/connect/v1/claims/verify", {"claims": [{"text": 5, "source": "s"}]}, "claims[0].text"),
        (
            "/connect/v1/claims/verify",
            {"claims": [{"text": "x", "source": "s", "external_id": 7}]},
            "claims[0].external_id",
        ),
        (
            "/connect/v1/claims/verify",
            {"claims": [{"text": "x", "source": "s"}], "wait": "0"},
            "wait",
        ),
        ("/connect/v1/rag/audit", {"answer": 5, "chunks": [CHUNK]}, "answer"),
        ("/connect/v1/webhooks", {**WEBHOOK, "threshold": "10"}, "threshold"),
        ("/connect/v1/memory/verify", {"agent": 1, "message": "m", "transcript_id": 1}, "agent"),
    ],
)
def test_a_wrong_typed_json_value_is_refused_not_coerced(api, url, body, field):
    before = _stored()
    error = _post(api, url, body)
    assert error["code"] == "invalid_request", error
    assert field in error["details"], error
    assert error["message"].startswith(f"The request is invalid: {field}: Must be "), error
    assert _stored() == before


@pytest.mark.parametrize(
    ("body", "field"),
    [({"scope": "claims", "job": "1"}, "job"), ({"scope": "claims", "q": 5}, "q")],
)
def test_an_audit_pack_job_checks_each_field_by_type(api, body, field):
    error = _post(api, "/connect/v1/audit-pack/jobs", body)
    assert (error["code"], error["details"]["field"]) == ("invalid_scope", field)
    assert not AuditPackJob.objects.exists()


def test_a_source_is_cited_by_its_ref_never_by_a_row_id(api, delta):
    """The API shows no source ids: "12" is a ref nobody stored (unknown_source), never
    the row with id 12 — which could be a memory transcript or a RAG chunk."""
    body = {"claims": [{"text": "Sediment settles where the current slows.", "source": delta.pk}]}
    error = _post(api, "/connect/v1/claims/verify", body)
    assert error["code"] == "invalid_request", error
    assert "claims[0].source" in error["details"], error
    assert error["message"].startswith("The request is invalid: claims[0].source: Must be ")
    body["claims"][0]["source"] = str(delta.pk)
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    assert response.status_code == 200, response.content[:300]
    (row,) = response.json()["results"]
    assert (row["status"], row["error"]["code"]) == ("error", "unknown_source")


def test_a_transcript_timestamp_is_a_string_or_a_number(api):
    turns = [{"speaker": "bot", "text": "x", "timestamp": {"a": 1}}]
    error = _post(api, "/connect/v1/memory/transcripts", {"transcript": turns})
    assert error["code"] == "invalid_turn"
    assert error["details"]["field"] == "transcript[0].timestamp"
    assert "(transcript[0].timestamp)" in error["message"]
    assert "string or a number, not an object" in error["message"]
    assert not Source.objects.exists()
    numbered = [{"speaker": "bot", "text": "x", "timestamp": 1712}]
    response = api.post(
        "/connect/v1/memory/transcripts", {"transcript": numbered}, content_type="application/json"
    )
    assert response.status_code == 201, response.content[:300]


def test_a_json_key_given_twice_is_refused_naming_it(api):
    raw = '{"ref": "source:dupA", "text": "Dup key text.", "ref": "source:dupB"}'
    response = api.post("/connect/v1/sources", raw, content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("duplicate_field", {"field": "ref"})
    assert "'ref' twice" in error["message"]
    assert not Source.objects.exists()


def test_a_chunk_key_given_twice_in_jsonl_is_refused(api):
    chunks = '{"id": "c1", "text": "HNSW builds a graph.", "id": "c2"}\n'
    error = _post(
        api, "/connect/v1/rag/audit", {"answer": "HNSW builds a graph.", "chunks": chunks}
    )
    assert (error["code"], error["details"]["field"]) == ("duplicate_field", "id")
    assert not RagAudit.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "/connect/v1/claims?state=supported&state=unverified",
        "/connect/v1/audit-pack?scope=claims&state=supported&state=unverified",
        "/connect/v1/calibrators?status=active&status=retired",
        "/connect/v1/ingest-jobs?page_size=5&page_size=50",
    ],
)
def test_a_query_parameter_given_twice_is_refused(api, url):
    response = api.get(url)
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert error["code"] == "duplicate_field"
    assert error["details"]["field"] in ("state", "status", "page_size")


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("/connect/v1/audit-pack?stat=supported", "stat"),
        ("/connect/v1/claims?sate=supported", "sate"),
        ("/connect/v1/calibrators?judge=x", "judge"),
        ("/connect/v1/ingest-jobs?status=queued", "status"),
        ("/connect/v1/webhooks?limit=5", "limit"),
    ],
)
def test_an_unknown_query_parameter_is_refused(api, url, name):
    response = api.get(url)
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("unknown_field", {"field": name})
    assert "query parameter" in error["message"]


def test_pagination_and_format_parameters_are_read(api):
    assert api.get("/connect/v1/claims?page_size=5&format=json").status_code == 200
    assert api.get("/connect/v1/webhooks?page_size=5").status_code == 200


def test_an_out_of_range_job_id_reads_the_same_in_both_audit_pack_doors(api):
    got = api.get("/connect/v1/audit-pack?scope=ingest_job&job=9223372036854775808")
    posted = api.post(
        "/connect/v1/audit-pack/jobs",
        json.dumps({"scope": "ingest_job", "job": 10**400}),
        content_type="application/json",
    )
    errors = [got.json()["error"], posted.json()["error"]]
    assert {(e["code"], e["details"]["field"]) for e in errors} == {("invalid_scope", "job")}
    assert errors[0]["message"] == errors[1]["message"], errors
    assert "less than or equal to 9223372036854775807" in errors[0]["message"]
