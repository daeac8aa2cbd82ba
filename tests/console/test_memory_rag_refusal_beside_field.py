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
