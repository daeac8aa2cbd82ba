"""/connect/v1/memory/* through the real API, database, binder, embeddings and judge."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import Claim, MemoryCheck, MemoryTranscript, Source, SourceVersion

VERIFY = "/connect/v1/memory/verify"
TURNS = [
    {"speaker": "user", "text": "Can you get me the report?", "timestamp": "10:00"},
    {
        "speaker": "agent",
        "text": "I'll try to send the draft this week if nothing comes up.",
        "timestamp": "10:01",
    },
]


def post(client, url, body):
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.mark.django_db
def test_verify_returns_the_seed_metrics_per_claim(api, workspace):
    message = 'I said "I\'ll try to send the draft Friday 5pm if nothing comes up."'
    response = post(api, VERIFY, {"agent": "agent", "message": message, "transcript": TURNS})
    assert response.status_code == 200, response.content
    body = response.json()
    (claim,) = body["claims"]
    assert claim["outcome"] == "unsupported:drift"
    assert claim["claim_type"] == "verbatim"
    assert claim["drift_categories"] == ["precision_added"]
    assert 0.5 < claim["similarity"] < 1.0
    (span,) = claim["drift_spans"]
    assert message[slice(*span["claim_span"])] == "5pm"
    row = MemoryTranscript.objects.get(workspace=workspace)
    assert row.version.text[slice(*span["source_span"])] == "this week"
    assert body["transcript"]["sha256"] == row.version.sha256
    check = MemoryCheck.objects.get(pk=claim["check_id"])
    assert response["Location"] == f"/audit/memory/checks/{check.pk}/"
    stored = Claim.objects.get(public_id=claim["claim_id"])
    assert stored.origin == "memory" and stored.state == "contradicted"
    # the call's trace, as the worker and retrieval name theirs
    trace = api.get(f"/connect/v1/traces/{body['trace_id']}")
    assert trace.status_code == 200 and trace.json()["operation"] == "memory_verify"


@pytest.mark.django_db
def test_import_then_verify_by_id_and_stats(api):
    imported = post(api, "/connect/v1/memory/transcripts", {"transcript": TURNS, "ref": "chat:1"})
    assert imported.status_code == 201, imported.content
    transcript = imported.json()
    assert transcript["ref"] == "chat:1" and transcript["turns"] == 2 and transcript["complete"]
    again = post(api, "/connect/v1/memory/transcripts", {"transcript": TURNS, "ref": "chat:1"})
    assert again.status_code == 200, "the same turns again create nothing"
    assert again.json() == transcript
    message = 'I said "I\'ll try to send the draft this week if nothing comes up."'
    for _ in range(10):
        response = post(
            api, VERIFY, {"agent": "agent", "message": message, "transcript_id": transcript["id"]}
        )
        assert response.json()["claims"][0]["outcome"] == "supported:exact"
    stats = api.get("/connect/v1/memory/agents/agent/stats").json()
    assert stats["evaluated_claims"] == 10
    assert stats["support_rate"]["value"] == 1.0 and len(stats["support_rate"]["ci95"]) == 2
    assert stats["drift_rate"]["value"] == 0.0 and stats["coverage_rate"]["value"] == 1.0


@pytest.mark.django_db
def test_stats_below_ten_claims_say_so(api):
    post(api, VERIFY, {"agent": "agent", "message": "As discussed, done.", "transcript": TURNS})
    post(api, VERIFY, {"agent": "agent", "message": 'I said "hello there"', "transcript": TURNS})
    stats = api.get("/connect/v1/memory/agents/agent/stats").json()
    assert stats["evaluated_claims"] == 1 and stats["out_of_scope_claims"] == 1
    assert stats["drift_rate"] is None and "at least 10" in stats["note"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"agent": "agent"}, "invalid_request"),
        ({"agent": "agent", "message": "   ", "transcript": TURNS}, "empty_message"),
        ({"agent": "agent", "message": "I said 'x'", "transcript": 5}, "invalid_request"),
        ({"agent": "agent", "message": "I said 'x'", "transcript": "nope\n{"}, "invalid_jsonl"),
        (
            {"agent": "agent", "message": "I said 'x'", "transcript": [{"text": "x"}]},
            "invalid_turn",
        ),
        (
            {"agent": "agent", "message": "I said 'x'", "transcript": TURNS, "transcript_id": 1},
            "invalid_request",
        ),
        (  # a misspelt "complete": false must not read as a complete transcript
            {
                "agent": "agent",
                "message": "I said 'x'",
                "transcript": {"turns": TURNS, "compelte": False},
            },
            "unknown_field",
        ),
    ],
)
def test_bad_input_is_a_400_with_the_error_body(api, body, code):
    response = post(api, VERIFY, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not MemoryCheck.objects.exists()


@pytest.mark.django_db
def test_other_workspace_sees_404(api, other_workspace):
    imported = post(api, "/connect/v1/memory/transcripts", {"transcript": TURNS}).json()
    post(
        api, VERIFY, {"agent": "agent", "message": "I said 'x y'", "transcript_id": imported["id"]}
    )
    other = client_for(other_workspace)
    response = post(
        other,
        VERIFY,
        {"agent": "agent", "message": "I said 'x y'", "transcript_id": imported["id"]},
    )
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    stats = other.get("/connect/v1/memory/agents/agent/stats")
    assert stats.status_code == 404 and "error" in stats.json()
    missing = post(api, VERIFY, {"agent": "a", "message": "I said 'x'", "transcript_id": 99999})
    assert missing.status_code == 404


@pytest.mark.django_db
def test_requires_an_api_key(client):
    response = post(client, VERIFY, {"agent": "agent", "message": "I said 'x'"})
    assert response.status_code in (401, 403) and "error" in response.json()


@pytest.mark.django_db
def test_schema_lists_the_memory_endpoints(api):
    schema = api.get("/connect/v1/schema", HTTP_ACCEPT="application/json").json()
    assert "/connect/v1/memory/verify" in schema["paths"]
    assert "/connect/v1/memory/agents/{agent_id}/stats" in schema["paths"]
    assert "MemoryVerifyResponse" in schema["components"]["schemas"]


@pytest.mark.django_db
def test_a_check_without_a_transcript_is_a_400(api):
    response = post(api, VERIFY, {"agent": "agent", "message": "I said 'x y'"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "no_transcript"
    empty = post(api, VERIFY, {"agent": "agent", "message": "I said 'x y'", "transcript": ""})
    assert empty.status_code == 400
    assert empty.json()["error"]["code"] == "empty_transcript"
    assert not MemoryCheck.objects.exists()


@pytest.mark.django_db
def test_a_transcript_under_a_documents_ref_is_refused_and_the_document_kept(api, workspace):
    document = {"ref": "source:clobber", "text": "The harbour wall was rebuilt in 1998."}
    assert post(api, "/connect/v1/sources", document).status_code in {200, 201}
    response = post(
        api, "/connect/v1/memory/transcripts", {"transcript": TURNS, "ref": "source:clobber"}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "ref_in_use"
    kept = api.get("/connect/v1/sources/source:clobber").json()
    assert kept["text"] == document["text"]
    assert not MemoryTranscript.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_no_document_door_writes_a_version_of_a_transcript_or_a_rag_chunk(api, workspace):
    stored = post(api, "/connect/v1/memory/transcripts", {"transcript": TURNS})
    assert stored.status_code == 201, stored.content
    transcript_ref = stored.json()["ref"]
    audit = post(
        api,
        "/connect/v1/rag/audit",
        {
            "answer": "HNSW builds a proximity graph [c1].",
            "chunks": [{"id": "c1", "text": "HNSW builds a proximity graph."}],
        },
    )
    assert audit.status_code == 200, audit.content
    (chunk,) = Source.objects.filter(workspace=workspace, ref__startswith="rag-chunk:")
    versions_before = dict(SourceVersion.objects.values_list("pk", "sha256"))

    for ref in (transcript_ref, chunk.ref):
        overwrite = {"ref": ref, "text": "bot: I never promised anything."}
        response = post(api, "/connect/v1/sources", overwrite)
        assert response.status_code == 409, response.content
        assert response.json()["error"]["code"] == "ref_in_use"
        inline = post(
            api,
            "/connect/v1/claims/verify",
            {"claims": [{"text": "Nothing was promised.", "source": ref}], "sources": [overwrite]},
        )
        assert inline.status_code == 409
        assert inline.json()["error"]["code"] == "ref_in_use"
        job = post(
            api,
            "/connect/v1/ingest-jobs",
            {"sources": [{"ref": ref, "title": "Overwrite", "text": overwrite["text"]}]},
        )
        assert job.status_code == 409, job.content
        assert job.json()["error"]["code"] == "ref_in_use"
    # a document cannot squat the refs the memory and RAG doors make from a hash either
    squat = post(api, "/connect/v1/sources", {"ref": "rag-chunk:0123456789abcdef", "text": "x."})
    assert squat.status_code == 400
    assert squat.json()["error"]["code"] == "reserved_ref"
    assert not Source.objects.filter(ref="rag-chunk:0123456789abcdef").exists()
    assert dict(SourceVersion.objects.values_list("pk", "sha256")) == versions_before

    again = post(api, "/connect/v1/memory/transcripts", {"transcript": TURNS})
    assert again.status_code == 200  # the same turns: the stored transcript, unchanged


@pytest.mark.django_db
def test_the_same_check_again_finds_its_claim_instead_of_storing_a_second(api, workspace):
    """Four identical calls stored four claims, and each drift claim joined the review
    queue again (integrator walk): a check repeated on the same transcript is its claim."""
    message = 'I said "I\'ll try to send the draft Friday 5pm if nothing comes up."'
    body = {"agent": "agent", "message": message, "transcript": TURNS}
    first = post(api, VERIFY, body).json()["claims"][0]
    again = post(api, VERIFY, body).json()["claims"][0]
    assert again["claim_id"] == first["claim_id"]
    assert again["check_id"] != first["check_id"]  # each call is a check of its own
    assert Claim.objects.filter(workspace=workspace, origin="memory").count() == 1
    # another transcript (another version) is another claim
    changed = [*TURNS, {"speaker": "user", "text": "Thanks."}]
    other = post(api, VERIFY, {**body, "transcript": changed}).json()["claims"][0]
    assert other["claim_id"] != first["claim_id"]


@pytest.mark.django_db
def test_a_you_said_claim_about_the_users_words_is_out_of_the_agents_stats(api):
    """An agent that quoted itself exactly ten times and the user correctly ten times
    read 0.5 support and 0.5 coverage: the "you said" claims, out of scope, counted as
    evaluated ones."""
    own = 'I said "I\'ll try to send the draft this week if nothing comes up."'
    theirs = 'You said "Can you get me the report?"'
    for message in [own] * 10 + [theirs] * 10:
        post(api, VERIFY, {"agent": "agent", "message": message, "transcript": TURNS})
    stats = api.get("/connect/v1/memory/agents/agent/stats").json()
    assert (stats["evaluated_claims"], stats["out_of_scope_claims"]) == (10, 10)
    assert stats["support_rate"]["value"] == 1.0 and stats["coverage_rate"]["value"] == 1.0
