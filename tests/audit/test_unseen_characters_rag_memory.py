"""The RAG audit and memory check pages show an invisible or reordering character by its
code point, as the claim and source pages do: an answer or a turn stored as
"\u202e001$ diap" read "paid $100" there."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db

OVERRIDE = "\u202e001$ diap\u202c"
MARK = 'class="unseen-char" data-char="U+202E"'


def test_a_rag_audit_page_marks_an_override_in_the_answer_claim_and_chunk(reviewer_client):
    answer = f"The client {OVERRIDE} on Monday [c1]."
    chunks = json.dumps([{"id": "c1", "text": f"The client {OVERRIDE} on Monday."}])
    response = reviewer_client.post("/audit/rag/", {"answer": answer, "chunks": chunks})
    assert response.status_code == 302, response.content
    page = reviewer_client.get(response["Location"]).content.decode()
    answer_html = page.split('id="rag-answer"')[1].split("</div>")[0]
    assert MARK in answer_html
    claim_page = reviewer_client.get(response["Location"] + "claims/0/").content.decode()
    assert claim_page.count(MARK) >= 3  # the answer, the claim's span, the chunk's text


def test_a_memory_check_page_marks_an_override_in_the_message_and_turn(reviewer_client):
    transcript = json.dumps([{"speaker": "agent", "text": f"The client {OVERRIDE} on Monday."}])
    message = f'I said "The client {OVERRIDE} on Monday."'
    response = reviewer_client.post(
        "/audit/memory/", {"agent": "agent", "message": message, "transcript": transcript}
    )
    assert response.status_code == 302, response.content
    page = reviewer_client.get(response["Location"]).content.decode()
    texts = page.split('class="memory-text"')[1:]
    assert len(texts) == 2 and all(MARK in text.split("</div>")[0] for text in texts)
