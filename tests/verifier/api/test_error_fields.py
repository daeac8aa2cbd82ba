"""Every 400 of the less-travelled doors names where the problem is in
``details.field`` (the attack probe found them without one): the memory verifier's and
the RAG audit's refusals of the input as a whole, a rule across fields, and a body
that does not parse or is not the object the route takes (``body``). Nothing is
stored."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import MemoryCheck, MemoryTranscript, RagAudit, Source, Trace

MEMORY = "/connect/v1/memory/verify"
TRANSCRIPTS = "/connect/v1/memory/transcripts"
RAG = "/connect/v1/rag/audit"
TURNS = [{"speaker": "bot", "text": "The launch is on 4 May."}]
CHUNKS = [{"id": "c1", "text": "The sky is blue."}]


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def _refused(response, code: str, field: str) -> dict:
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["details"].get("field")) == (code, field), error
    assert error["message"]
    assert not MemoryCheck.objects.exists() and not MemoryTranscript.objects.exists()
    assert not RagAudit.objects.exists() and not Trace.objects.exists()
    assert not Source.objects.exists()
    return error


def _memory(transcript) -> dict:
    return {
        "agent": "bot",
        "message": "As I said, the launch is on 4 May.",
        "transcript": transcript,
    }


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (_memory({"complete": True}), "invalid_transcript", "transcript"),
        (_memory({"turns": "abc"}), "invalid_transcript", "transcript"),
        (_memory({"turns": TURNS, "complete": "yes"}), "invalid_transcript", "transcript"),
        (_memory([]), "empty_transcript", "transcript"),
        (_memory("5"), "invalid_transcript", "transcript"),
        (_memory("{{{not json"), "invalid_jsonl", "transcript"),
        (_memory("[" * 100 + "]" * 100), "json_too_deep", "transcript"),
        (_memory([{"speaker": "bot", "text": "x"}] * 5001), "payload_too_large", "transcript"),
        ({"agent": "bot", "message": "As I said, x."}, "no_transcript", "transcript"),
        ({**_memory(TURNS), "message": " "}, "empty_message", "message"),
        ({**_memory(TURNS), "message": "x" * 20_001}, "invalid_message", "message"),
        ({**_memory(TURNS), "agent": " "}, "invalid_request", "agent"),
        ({**_memory(TURNS), "transcript_id": 1}, "invalid_request", "transcript_id"),
    ],
)
def test_a_memory_check_refused_names_its_field(api, body, code, field):
    _refused(api.post(MEMORY, body, content_type="application/json"), code, field)


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"transcript": []}, "empty_transcript", "transcript"),
        ({"transcript": TURNS, "ref": " " + "r" * 201}, "invalid_request", "ref"),
    ],
)
def test_a_transcript_import_refused_names_its_field(api, body, code, field):
    _refused(api.post(TRANSCRIPTS, body, content_type="application/json"), code, field)


@pytest.mark.parametrize(
    ("chunks", "code", "field"),
    [
        ([], "no_chunks", "chunks"),
        ("c1", "malformed_jsonl", "chunks"),
        ([1], "invalid_chunk", "chunks[0]"),
        ([*CHUNKS, {"id": "c2", "text": None}], "invalid_chunk", "chunks[1]"),
        ([*CHUNKS, {"id": "c1", "text": "The sky is red."}], "duplicate_chunk_id", "chunks[1]"),
    ],
)
def test_a_rag_audit_refused_names_its_field(api, chunks, code, field):
    body = {"answer": "The sky is blue [c1].", "chunks": chunks}
    _refused(api.post(RAG, body, content_type="application/json"), code, field)


@pytest.mark.parametrize("url", [MEMORY, RAG, "/worker/verify"])
@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ('{"answer":', "malformed_request"),
        ('{"answer": NaN}', "malformed_request"),
        ("\ufeff{}", "malformed_request"),
        ("[1, 2]", "invalid_request"),
    ],
)
def test_a_body_that_is_not_the_routes_object_names_the_body(api, url, raw, code):
    error = _refused(api.post(url, raw, content_type="application/json"), code, "body")
    assert "details" in error and error["details"]["field"] == "body"


def test_a_body_too_large_names_the_body(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = {"answer": "x" * 2000, "chunks": CHUNKS}
    error = _refused(
        api.post(RAG, body, content_type="application/json"), "payload_too_large", "body"
    )
    assert error["details"]["limit"] == 1000


@pytest.mark.parametrize("one", ["１", "١", "1.0", " 1"])
def test_a_forms_whole_number_is_ascii_digits(api, one):
    """A form body's ``transcript_id`` of "１" was read as transcript 1 (DRF's
    IntegerField reads any Unicode digit), where a query's is refused."""
    body = f"agent=bot&message=As+I+said+x&transcript_id={one}"
    response = api.post(MEMORY, body, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["details"]["field"] == "transcript_id"
    assert "ASCII digits" in error["message"]
    assert not MemoryCheck.objects.exists()
