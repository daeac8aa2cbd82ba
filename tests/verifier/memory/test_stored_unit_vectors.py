"""A stored transcript keeps its units' vectors: the first check embeds them and writes
them once, every later check reads them instead of embedding the transcript again, and
answers exactly as the same check of the same turns given inline (not stored).

The real database, MiniLM embeddings and default judge; ``embed_texts`` is wrapped only
to count the texts it is asked to embed (cost is behaviour here: a check that embeds the
whole transcript again costs CPU in proportion to it, ``bench/memory_size.py``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from tests.verifier.api.conftest import client_for
from verifier.embeddings import EMBEDDING_DIMENSIONS, embed_texts
from verifier.engine import get_judge
from verifier.memory import MemoryVerifier, parse_transcript, units
from verifier.models import MemoryTranscript, MemoryUnitVector
from verifier.services import memory as memory_services
from verifier.services.memory import memory_unit_vectors_store, unit_vectors_model

VERIFY = "/connect/v1/memory/verify"
TRANSCRIPTS = "/connect/v1/memory/transcripts"
TOPICS = ["the budget", "the draft report", "the Friday meeting", "the café opening 🎉"]


def turns(n: int) -> list[dict[str, str]]:
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append({"speaker": "user", "text": f"Question {i}: what about {TOPICS[i % 4]}?"})
        else:
            text = f"I will handle {TOPICS[i // 2 % 4]} by day {i}. Cafe\u0301 note {i} 👍🏽."
            out.append({"speaker": "agent", "text": text})
    out.append({"speaker": "agent", "text": "I'll try to send the draft this week."})
    out.append({"speaker": "agent", "text": "Sorry, I'll send the draft next Monday."})
    out.append({"speaker": "agent", "text": "The venue holds forty people."})
    return out


TURNS = turns(30)
FIRST = 'I said "I will handle the budget by day 1."'
# exact, drift, conflicts, no match, and a "you said"
SECOND = (
    'I said "The venue holds forty people." '
    'I said "I will handle the draft report by day 3. Cafe\u0301 note 3 👍🏽." '
    "I also told you that I will handle the budget by day 42. "
    "I mentioned that I would take care of the Friday meeting by day 5. "
    'My exact words were "The invoice was paid in March." '
    'I said "I will send the draft this week." '
    'You said "what about the budget?"'
)


class CountingEmbed:
    """``embed_texts``, counting each text it is asked to embed."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.update(texts)
        return embed_texts(texts)


def post(client, url, body):
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.fixture
def counting(monkeypatch):
    embed = CountingEmbed()
    monkeypatch.setattr(memory_services, "embed_texts", embed)
    return embed


def unit_texts() -> set[str]:
    transcript = parse_transcript(TURNS)
    return {u.text for u in units(transcript, transcript.turns)}


def without_ids(claims: list[dict]) -> list[dict]:
    return [{k: v for k, v in c.items() if k not in ("check_id", "claim_id")} for c in claims]


@pytest.mark.django_db
def test_a_second_check_of_a_stored_transcript_embeds_no_unit(api, counting):
    imported = post(api, TRANSCRIPTS, {"transcript": TURNS})
    assert imported.status_code == 201, imported.content
    assert counting.asked == Counter()  # the import embeds nothing
    transcript_id = imported.json()["id"]
    first = post(api, VERIFY, {"agent": "agent", "message": FIRST, "transcript_id": transcript_id})
    assert first.status_code == 200, first.content
    own = unit_texts() & set(counting.asked)
    assert own, "the first check embeds the agent's units"
    row = MemoryTranscript.objects.get(pk=transcript_id)
    stored = MemoryUnitVector.objects.filter(transcript=row)
    assert stored.count() >= len(own)
    assert set(stored.values_list("embedding_model", flat=True)) == {unit_vectors_model()}

    counting.asked.clear()
    second = post(
        api, VERIFY, {"agent": "agent", "message": SECOND, "transcript_id": transcript_id}
    )
    assert second.status_code == 200, second.content
    assert len(second.json()["claims"]) == 7
    embedded_units = unit_texts() & set(counting.asked)
    # "you said" and no-match claims read the user's units too: stored by this check,
    # so a third check embeds none at all
    counting.asked.clear()
    third = post(api, VERIFY, {"agent": "agent", "message": SECOND, "transcript_id": transcript_id})
    assert third.status_code == 200, third.content
    assert unit_texts() & set(counting.asked) == set()
    assert not embedded_units & own  # the agent's units were never embedded twice
    assert without_ids(third.json()["claims"]) == without_ids(second.json()["claims"])


@pytest.mark.django_db
def test_a_check_against_a_stored_transcript_answers_as_the_same_check_inline(api):
    imported = post(api, TRANSCRIPTS, {"transcript": TURNS}).json()
    warm = post(api, VERIFY, {"agent": "agent", "message": FIRST, "transcript_id": imported["id"]})
    assert warm.status_code == 200, warm.content
    assert MemoryUnitVector.objects.filter(transcript_id=imported["id"]).exists()
    stored = post(
        api, VERIFY, {"agent": "agent", "message": SECOND, "transcript_id": imported["id"]}
    )
    assert stored.status_code == 200, stored.content

    inline = MemoryVerifier(judge=get_judge(), embed=embed_texts).verify_message(
        SECOND, parse_transcript(TURNS), "agent"
    )
    claims = stored.json()["claims"]
    assert without_ids(claims) == [v.as_dict() for v in inline]
    outcomes = {c["outcome"] for c in claims}
    assert outcomes == {
        "supported:exact",
        "unsupported:drift",
        "inconclusive:conflict",
        "unsupported:no_match",
        "inconclusive:insufficient",
    }


@pytest.mark.django_db
def test_vectors_of_another_model_are_never_read(api, counting):
    imported = post(api, TRANSCRIPTS, {"transcript": TURNS}).json()
    row = MemoryTranscript.objects.get(pk=imported["id"])
    transcript = parse_transcript(TURNS)
    wrong = np.zeros(EMBEDDING_DIMENSIONS, dtype=np.float32)
    wrong[0] = 1.0  # the same vector for every unit: a check reading it would be nonsense
    memory_unit_vectors_store(
        transcript=row,
        embedding_model="another-model",
        vectors={(u.start, u.end): wrong for u in units(transcript, transcript.turns)},
    )
    response = post(
        api, VERIFY, {"agent": "agent", "message": SECOND, "transcript_id": imported["id"]}
    )
    assert response.status_code == 200, response.content
    inline = MemoryVerifier(judge=get_judge(), embed=embed_texts).verify_message(
        SECOND, transcript, "agent"
    )
    assert without_ids(response.json()["claims"]) == [v.as_dict() for v in inline]
    assert unit_texts() & set(counting.asked)  # recomputed with this model
    models = set(
        MemoryUnitVector.objects.filter(transcript=row).values_list("embedding_model", flat=True)
    )
    assert models == {unit_vectors_model()}  # the other model's vectors are gone
