"""A memory check that never compared the claim with a turn (out of scope, agent not in
the transcript) is headed by its reason; its details must not read as a clean result
("No material drift.", "No turn ... matched") as if the claim had been checked."""

from __future__ import annotations

import json

import pytest

from verifier.models import MemoryCheck

TURNS = [
    {"speaker": "user", "text": "How long is the harbour wall?"},
    {"speaker": "bot", "text": "The harbour wall is 412 metres long and was rebuilt in 1998."},
]


def _check_page(client, agent: str, message: str) -> tuple[MemoryCheck, str]:
    response = client.post(
        "/audit/memory/", {"agent": agent, "message": message, "transcript": json.dumps(TURNS)}
    )
    assert response.status_code == 302, response.content
    return MemoryCheck.objects.get(), client.get(response["Location"]).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("agent", "message", "words"),
    [
        ("nobody", "I said 'The harbour wall is 412 metres long'.", "Agent not in transcript"),
        ("bot", "As discussed, the wall is long.", "Out of scope"),
        ("bot", "Ich sagte, die Mauer ist 412 Meter lang.", "Out of scope"),
    ],
)
def test_a_claim_never_compared_says_so_in_its_details(reviewer_client, agent, message, words):
    check, html = _check_page(reviewer_client, agent, message)
    assert check.outcome == "inconclusive:insufficient"
    assert "No material drift." not in html
    assert "No turn of the transcript matched this claim." not in html
    assert "Not checked for drift" in html and words in html
    assert 'id="memory-not-compared-turn"' in html


@pytest.mark.django_db
def test_a_compared_claim_without_drift_still_says_no_material_drift(reviewer_client):
    check, html = _check_page(
        reviewer_client, "bot", "I said 'The harbour wall is 412 metres long'."
    )
    assert check.outcome.startswith("supported")
    assert "No material drift." in html and "Not checked for drift" not in html
