"""The memory console page: form, claim beside the matched turn, escaping, empty state."""

from __future__ import annotations

import json

import pytest

from verifier.models import MemoryCheck

TURNS = [
    {"speaker": "user", "text": "Can you get me the <b>report</b>?"},
    {"speaker": "agent", "text": "I'll try to send the draft this week if nothing comes up."},
]


@pytest.mark.django_db
def test_empty_state(reviewer_client):
    response = reviewer_client.get("/audit/memory/")
    assert response.status_code == 200
    assert b"No memory checks yet" in response.content
    assert b'aria-current="page"' in response.content


@pytest.mark.django_db
def test_verify_from_the_console_shows_claim_beside_turn(reviewer_client):
    message = 'I said "I\'ll try to send the draft Friday if nothing comes up." <script>x</script>'
    response = reviewer_client.post(
        "/audit/memory/",
        {"agent": "agent", "message": message, "transcript": json.dumps(TURNS)},
    )
    check = MemoryCheck.objects.get()
    assert (
        response.status_code == 302 and response["Location"] == f"/audit/memory/checks/{check.pk}/"
    )
    page = reviewer_client.get(response["Location"])
    html = page.content.decode()
    assert page.status_code == 200
    assert "unsupported:drift" in html and "temporal_shift" in html
    # the highlight names the drift in words (verifier/vocabulary.py), not by its code
    assert '<mark class="m-drift" title="Time changed">Friday</mark>' in html
    assert '<mark class="m-drift" title="Time changed">this week</mark>' in html
    assert "<script>x</script>" not in html and "&lt;script&gt;" in html
    assert "Matched turn" in html


@pytest.mark.django_db
def test_bad_transcript_is_a_form_error(reviewer_client):
    response = reviewer_client.post(
        "/audit/memory/", {"agent": "agent", "message": "I said 'x'", "transcript": "[{]"}
    )
    assert response.status_code == 400
    assert b'role="alert"' in response.content
    assert not MemoryCheck.objects.exists()


@pytest.mark.django_db
def test_other_workspace_check_is_404(reviewer_client, other_workspace):
    from verifier.services.memory import memory_verify

    write = memory_verify(
        workspace=other_workspace, agent="a", message="As discussed, ok.", transcript_data=TURNS
    )
    response = reviewer_client.get(f"/audit/memory/checks/{write.checks[0].pk}/")
    assert response.status_code == 404


@pytest.mark.django_db
def test_an_empty_transcript_is_a_form_error_and_nothing_is_stored(reviewer_client):
    """Issue 39, point 4: it was saved and shown as "No material drift"."""
    response = reviewer_client.post(
        "/audit/memory/",
        {"agent": "agent", "message": 'I said "I will send the draft."', "transcript": "  "},
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert 'role="alert"' in html and "needs the transcript" in html
    assert not MemoryCheck.objects.exists()
