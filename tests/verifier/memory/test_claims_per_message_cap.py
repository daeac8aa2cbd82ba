"""A verify call's message may make at most ``MAX_CLAIMS_PER_MESSAGE`` claims: one more is
refused as a 400 naming ``message`` with the cap, before any work (nothing embedded,
nothing imported or stored). Real database, embeddings and judge."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from tests.verifier.api.conftest import client_for
from verifier.embeddings import embed_texts
from verifier.memory import message_claims
from verifier.models import MemoryCheck, MemoryTranscript, Source
from verifier.services import memory as memory_services
from verifier.services.memory import MAX_CLAIMS_PER_MESSAGE

VERIFY = "/connect/v1/memory/verify"
TURNS = [
    {"speaker": "user", "text": "When will the draft come?"},
    {"speaker": "agent", "text": "I will send the draft on Friday."},
]


def message(claims: int) -> str:
    return " ".join(f'I said "I will send draft {i} on Friday."' for i in range(claims))


def post(client, body):
    return client.post(VERIFY, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.mark.django_db
def test_a_message_over_the_claims_cap_is_refused_before_any_work(api, monkeypatch):
    embedded: list[str] = []

    def counting(texts: Sequence[str]) -> np.ndarray:
        embedded.extend(texts)
        return embed_texts(texts)

    monkeypatch.setattr(memory_services, "embed_texts", counting)
    text = message(MAX_CLAIMS_PER_MESSAGE + 1)
    assert len(message_claims(text)) == MAX_CLAIMS_PER_MESSAGE + 1
    assert len(text) < memory_services.MAX_MESSAGE_CHARS  # the cap, not the size limit
    response = post(api, {"agent": "agent", "message": text, "transcript": TURNS})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "too_many_claims"
    assert error["details"]["field"] == "message"
    assert error["details"]["limit"] == MAX_CLAIMS_PER_MESSAGE
    assert f"at most {MAX_CLAIMS_PER_MESSAGE} claims" in error["message"]
    assert embedded == []
    assert not MemoryCheck.objects.exists()
    assert not MemoryTranscript.objects.exists()
    assert not Source.objects.exists()


@pytest.mark.django_db
def test_a_message_at_the_cap_is_checked(api):
    text = message(MAX_CLAIMS_PER_MESSAGE)
    response = post(api, {"agent": "agent", "message": text, "transcript": TURNS})
    assert response.status_code == 200, response.content
    assert len(response.json()["claims"]) == MAX_CLAIMS_PER_MESSAGE


def test_the_schema_states_the_cap():
    from drf_spectacular.generators import SchemaGenerator

    schema = json.loads(
        json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str)
    )
    request = schema["components"]["schemas"]["MemoryVerifyRequest"]
    assert f"{MAX_CLAIMS_PER_MESSAGE} claims" in request["properties"]["message"]["description"]
    refused = schema["paths"]["/connect/v1/memory/verify"]["post"]["responses"]["400"]
    assert "too_many_claims" in refused["description"]
