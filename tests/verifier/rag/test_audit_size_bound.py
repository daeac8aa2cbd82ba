"""An audit too large to answer within a request — a long answer over many chunks, each
within its own limit — is refused at once with words and nothing stored, instead of
running past the web server's worker timeout (a 20,000-character answer over 1,000
chunks took 227 s; the client got a dropped connection). The ``rag_audit`` command,
which no request times out, is not bound."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import RagAudit
from verifier.rag import Chunk, RagInputError, check_audit_size
from verifier.rag.chunks import MAX_ANSWER_TIMES_CHUNK_CHARS, MAX_ANSWER_TIMES_CHUNKS


def _chunks(n: int) -> list[Chunk]:
    return [Chunk(f"c{i}", f"Tarn Point Light number {i} was automated in 1987.") for i in range(n)]


def test_the_bound_is_the_answers_characters_times_its_chunks():
    answer = "a" * 10_000
    check_audit_size(answer, _chunks(MAX_ANSWER_TIMES_CHUNKS // 10_000))  # at the bound
    with pytest.raises(RagInputError) as refused:
        check_audit_size(answer, _chunks(MAX_ANSWER_TIMES_CHUNKS // 10_000 + 1))
    assert refused.value.code == "audit_too_large"
    assert refused.value.details == {
        "field": "chunks",
        "limit": MAX_ANSWER_TIMES_CHUNKS,
        "size": 10_000 * (MAX_ANSWER_TIMES_CHUNKS // 10_000 + 1),
    }
    assert "at most 200 chunks" in refused.value.message


def test_the_bound_is_also_the_answers_characters_times_the_chunks_characters():
    answer = "a" * 20_000
    most = MAX_ANSWER_TIMES_CHUNK_CHARS // 20_000  # 500,000 characters of chunks
    check_audit_size(answer, [Chunk(f"c{i}", "x" * (most // 50)) for i in range(50)])
    with pytest.raises(RagInputError) as refused:
        check_audit_size(answer, [Chunk(f"c{i}", "x" * (most // 50 + 1)) for i in range(50)])
    assert refused.value.code == "audit_too_large"
    assert refused.value.details["limit"] == MAX_ANSWER_TIMES_CHUNK_CHARS
    assert "at most 500,000 characters of chunks" in refused.value.message


@pytest.mark.django_db
def test_the_api_refuses_it_before_any_work_and_stores_nothing(workspace):
    api = client_for(workspace, "write")
    answer = "Tarn Point Light was automated in 1987 [c0]. " * 400  # 18,000 characters
    chunks = [{"id": c.id, "text": c.text} for c in _chunks(200)]
    response = api.post(
        "/connect/v1/rag/audit",
        data=json.dumps({"answer": answer, "chunks": chunks}),
        content_type="application/json",
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "audit_too_large"
    assert error["details"]["field"] == "chunks"
    assert "Send only the chunks the answer cites" in error["message"]
    assert not RagAudit.objects.exists()
