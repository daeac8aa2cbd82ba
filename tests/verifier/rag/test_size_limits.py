"""RAG audits at their size limits, through the real API, database and default judge:
one character, chunk or id over a limit is a 400 naming the field with nothing stored,
and evidence offsets in non-ASCII chunks (emoji, combining marks, CRLF) slice back to
their quotes in code points. Timing at size is ``bench/rag_size.py``'s."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import RagAudit, Source
from verifier.rag.chunks import (
    MAX_ANSWER_CHARS,
    MAX_CHUNK_CHARS,
    MAX_CHUNK_ID_CHARS,
    MAX_CHUNKS,
    MAX_CHUNKS_TOTAL_CHARS,
)

AUDIT = "/connect/v1/rag/audit"
CHUNK = {"id": "c1", "text": "Tarn Point Light was automated in 1987."}


def post(api, body):
    return api.post(AUDIT, data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (
            {"answer": "a" * (MAX_ANSWER_CHARS + 1), "chunks": [CHUNK]},
            "payload_too_large",
            "answer",
        ),
        (
            {"answer": "x", "chunks": [{"id": "c1", "text": "b" * (MAX_CHUNK_CHARS + 1)}]},
            "payload_too_large",
            "chunks[0]",
        ),
        (
            {
                "answer": "x",
                "chunks": [{"id": f"c{i}", "text": "t"} for i in range(MAX_CHUNKS + 1)],
            },
            "payload_too_large",
            "chunks",
        ),
        (
            {
                "answer": "x",
                "chunks": [
                    {"id": f"c{i}", "text": "t" * MAX_CHUNK_CHARS}
                    for i in range(MAX_CHUNKS_TOTAL_CHARS // MAX_CHUNK_CHARS + 1)
                ],
            },
            "payload_too_large",
            "chunks",
        ),
        (
            {"answer": "x", "chunks": [{"id": "i" * (MAX_CHUNK_ID_CHARS + 1), "text": "t"}]},
            "invalid_chunk",
            "chunks[0].id",
        ),
    ],
    ids=["answer", "chunk-text", "chunk-count", "chunks-total", "chunk-id"],
)
def test_one_over_a_limit_is_a_400_naming_the_field_and_nothing_is_stored(
    workspace, body, code, field
):
    response = post(client_for(workspace), body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == (code, field)
    assert not RagAudit.objects.exists()
    assert not Source.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_evidence_offsets_in_non_ascii_chunks_slice_back_to_their_quotes(workspace):
    chunks = [
        {
            "id": f"c{k}",
            "text": "".join(
                f"The lighthouse 🗼 at Kraków number {k}-{i} was built in {1850 + k * 10 + i} "
                f"and cafe\u0301 keepers served {i + 3} years.\r\n"
                for i in range(4)
            ),
        }
        for k in range(4)
    ]
    answer = (
        "The lighthouse 🗼 at Kraków number 2-3 was built in 1873 [c2]. "
        "Cafe\u0301 keepers served 4 years at number 3-1 [c3].\r\n"
        "The lighthouse at Kraków number 1-2 was built in 1862 [c1]."
    )
    response = post(client_for(workspace), {"answer": answer, "chunks": chunks})
    assert response.status_code == 200, response.content
    body = response.json()
    texts = {c["id"]: c["text"] for c in chunks}
    assert len(body["claims"]) == 3
    spans = 0
    for claim in body["claims"]:
        assert claim["span"] in answer
        for evidence in claim["evidence"]:
            text = texts[evidence["chunk_id"]]
            assert text[evidence["start"] : evidence["end"]] == evidence["quote"]
            spans += 1
    assert spans >= 3
