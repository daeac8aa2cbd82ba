"""Memory checks at size: a long transcript's turns are embedded once per message, the
size limits answer a 400 naming the field, and offsets stay right for non-ASCII text.

The real MiniLM embeddings and the default judge; the embedding function is wrapped only
to count what it is asked to embed (cost is behaviour here: a transcript of 2,000 turns
holds some 5,000 units, and embedding them is nearly all of a check's time,
``bench/memory_size.py``)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from tests.verifier.api.conftest import client_for
from verifier.embeddings import embed_texts
from verifier.engine import get_judge
from verifier.memory import MemoryVerifier, parse_transcript
from verifier.memory.transcript import MAX_TRANSCRIPT_CHARS, MAX_TURN_CHARS, MAX_TURNS
from verifier.models import MemoryCheck, MemoryTranscript, Source
from verifier.services.memory import MAX_AGENT_CHARS, MAX_MESSAGE_CHARS

TOPICS = ["the budget", "the draft report", "the Friday meeting", "the café opening 🎉"]


def turns(n: int) -> list[dict[str, str]]:
    out = []
    for i in range(n):
        if i % 2 == 0:
            text = f"Question {i}: what about {TOPICS[i % 4]}? 😀"
            out.append({"speaker": "user", "text": text})
        else:
            text = f"I will handle {TOPICS[i // 2 % 4]} by day {i}. Cafe\u0301 note {i} 👍🏽."
            out.append({"speaker": "agent", "text": text})
    return out


class CountingEmbed:
    """``embed_texts``, counting each text it is asked to embed."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.asked.update(texts)
        return embed_texts(texts)


MESSAGE = (
    'I said "I will handle the draft report by day 13. Cafe\u0301 note 13 👍🏽." '
    "I also told you that I will handle the budget by day 41. "
    'My exact words were "I will handle the Friday meeting by day 7."'
)


def test_a_message_embeds_each_turn_once_however_many_claims_it_makes():
    embed = CountingEmbed()
    verifier = MemoryVerifier(judge=get_judge(), embed=embed)
    verdicts = verifier.verify_message(MESSAGE, parse_transcript(turns(60)), "agent")
    assert len(verdicts) == 3
    assert all(v.similarity is not None and v.similarity > 0.6 for v in verdicts)
    twice = {text: n for text, n in embed.asked.items() if n > 1}
    assert twice == {}


def test_a_claim_its_agent_said_does_not_embed_the_other_speakers_turns():
    embed = CountingEmbed()
    verifier = MemoryVerifier(judge=get_judge(), embed=embed)
    (verdict,) = verifier.verify_message(
        f'I said "{turns(60)[41]["text"]}"',
        parse_transcript(turns(60)),
        "agent",
    )
    assert verdict.match is not None and verdict.match.binder == "exact"
    assert not [text for text in embed.asked if text.startswith("Question")]


def test_a_claim_of_the_users_words_still_finds_who_said_them():
    # the other speakers' turns are still read where they decide the outcome
    (verdict,) = MemoryVerifier(judge=get_judge(), embed=CountingEmbed()).verify_message(
        'I said "what about the Friday meeting?"', parse_transcript(turns(60)), "agent"
    )
    assert verdict.outcome == "unsupported:drift"
    assert verdict.drift_categories[0] == "actor_shift"
    assert verdict.match is not None and verdict.match.speaker == "user"


def post(api, url, body):
    return api.post(url, data=json.dumps(body), content_type="application/json")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("transcript", "code", "field"),
    [
        (turns(MAX_TURNS + 1), "payload_too_large", "transcript"),
        ({"turns": turns(MAX_TURNS + 1)}, "payload_too_large", "transcript"),
        ("x" * (MAX_TRANSCRIPT_CHARS + 1), "payload_too_large", "transcript"),
        (
            [{"speaker": "agent", "text": "w" * (MAX_TURN_CHARS + 1)}],
            "turn_too_large",
            "transcript[0].text",
        ),
    ],
    ids=["turns", "turns-object", "characters", "one-turn"],
)
def test_a_transcript_just_over_a_limit_is_a_400_naming_the_field(
    workspace, transcript, code, field
):
    api = client_for(workspace)
    for url, body in [
        ("/connect/v1/memory/transcripts", {"transcript": transcript}),
        (
            "/connect/v1/memory/verify",
            {"agent": "agent", "message": 'I said "hi."', "transcript": transcript},
        ),
    ]:
        response = post(api, url, body)
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert (error["code"], error["details"]["field"]) == (code, field)
    assert not Source.objects.filter(workspace=workspace).exists()
    assert not MemoryCheck.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("agent", "message", "field"),
    [
        ("agent", "I said hi. " * (MAX_MESSAGE_CHARS // 10), "message"),
        ("a" * (MAX_AGENT_CHARS + 1), 'I said "hi."', "agent"),
    ],
    ids=["message", "agent"],
)
def test_a_message_or_agent_just_over_its_limit_is_a_400_naming_it(
    workspace, agent, message, field
):
    response = post(
        client_for(workspace),
        "/connect/v1/memory/verify",
        {"agent": agent, "message": message, "transcript": turns(2)},
    )
    assert response.status_code == 400, response.content
    assert response.json()["error"]["details"]["field"] == field
    assert not MemoryTranscript.objects.exists() and not MemoryCheck.objects.exists()


@pytest.mark.django_db
def test_offsets_of_a_long_transcript_slice_back_to_the_words_in_code_points(workspace):
    api = client_for(workspace)
    imported = post(api, "/connect/v1/memory/transcripts", {"transcript": turns(200)})
    assert imported.status_code == 201, imported.content
    message = "Hello 👋🏽 e\u0301\r\n" + MESSAGE.replace(". I also", ".\r\nI also")
    response = post(
        api,
        "/connect/v1/memory/verify",
        {"agent": "agent", "message": message, "transcript_id": imported.json()["id"]},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    text = api.get(f"/connect/v1/sources/{body['transcript']['ref']}").json()["text"]
    assert len(body["claims"]) == 3
    for claim in body["claims"]:
        assert message[claim["claim_start"] : claim["claim_end"]] == claim["claim"]
        match = claim["match"]
        assert text[match["start"] : match["end"]] == match["quote"]
        for other in claim["conflicts"]:
            assert text[other["start"] : other["end"]] == other["quote"]
