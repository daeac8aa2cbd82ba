"""A refusal that names one field (``details.field``) stands beside that field on the
memory and RAG forms, and the field points at it, rather than heading the whole form."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db


def _field_tag(html: str, name: str) -> str:
    return re.search(rf'<textarea[^>]*name="{name}"[^>]*>|<input[^>]*name="{name}"[^>]*>', html)[0]


def test_a_bad_turn_is_the_transcript_fields_error(reviewer_client):
    typed = '[{"speaker": "assistant", "text": ""}]'
    response = reviewer_client.post(
        "/audit/memory/", {"agent": "assistant", "message": "I said 'hi'.", "transcript": typed}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_transcript_error"' in html and "transcript[0].text" in html
    tag = _field_tag(html, "transcript")
    assert 'aria-invalid="true"' in tag and "id_transcript_error" in tag


def test_a_bad_uploaded_transcript_is_the_file_fields_error(reviewer_client):
    upload = SimpleUploadedFile("t.json", b'[{"speaker": "assistant", "text": ""}]')
    response = reviewer_client.post(
        "/audit/memory/",
        {"agent": "assistant", "message": "I said 'hi'.", "transcript_file": upload},
    )
    assert response.status_code == 400
    assert 'id="id_transcript_file_error"' in response.content.decode()


def test_a_bad_chunk_is_the_chunks_fields_error(reviewer_client):
    response = reviewer_client.post(
        "/audit/rag/", {"answer": "The sky is blue [c1].", "chunks": '{"id": 2, "text": "x"}'}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_chunks_error"' in html
    tag = _field_tag(html, "chunks")
    assert 'aria-invalid="true"' in tag and "id_chunks_error" in tag


def test_a_refusal_reads_as_console_words_not_the_apis_markup(reviewer_client):
    """The API writes field names in backticks and numbers bare ("`message` makes 25
    claims", "at most 20000"); beside a form they read as a person writes them."""
    many = " ".join(f"I said the tower is {n} metres tall." for n in range(10, 35))
    response = reviewer_client.post(
        "/audit/memory/", {"agent": "assistant", "message": many, "transcript": ""}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "\u201cmessage\u201d makes 25 claims" in html and "`" not in html.split("<main")[1]

    response = reviewer_client.post(
        "/audit/rag/",
        {"answer": "The sky is blue [c1]. " * 10_000, "chunks": '{"id": "c1", "text": "x"}'},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "\u201canswer\u201d has 220,000 characters; at most 20,000 are allowed." in html
    assert "20000" not in html
