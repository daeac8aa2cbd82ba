"""Every refusal of a transcript's turn names where it is in the request body
(``transcript[i].field``, or ``transcript.turns[i].field`` for the object form), in
its message and in ``details.field``, at both memory endpoints."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import MemoryCheck, MemoryTranscript, Source

GOOD = {"speaker": "user", "text": "Hello."}


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def _body(url, transcript):
    if url.endswith("verify"):
        return {"agent": "bot", "message": "I said 'hi'", "transcript": transcript}
    return {"transcript": transcript}


@pytest.mark.parametrize("url", ["/connect/v1/memory/verify", "/connect/v1/memory/transcripts"])
@pytest.mark.parametrize(
    ("transcript", "code", "field"),
    [
        ([GOOD, "hi"], "invalid_turn", "transcript[1]"),
        ([GOOD, ["hi"]], "invalid_turn", "transcript[1]"),
        ([{"speaker": "bot", "text": "hi", "idx": -1}], "invalid_turn", "transcript[0].idx"),
        ([{"speaker": "bot", "text": " "}], "invalid_turn", "transcript[0].text"),
        ([{"speaker": "bot"}], "invalid_turn", "transcript[0].text"),
        ([GOOD, {"speaker": "b" * 101, "text": "x"}], "turn_too_large", "transcript[1].speaker"),
        (
            [dict(GOOD, idx=0), {"speaker": "bot", "text": "hi", "idx": 0}],
            "duplicate_idx",
            "transcript[1].idx",
        ),
        ({"turns": [GOOD, 5]}, "invalid_turn", "transcript.turns[1]"),
        (
            {"turns": [GOOD, {"speaker": "bot", "text": ""}], "complete": True},
            "invalid_turn",
            "transcript.turns[1].text",
        ),
    ],
)
def test_a_bad_turn_is_named_by_its_place_in_the_body(api, url, transcript, code, field):
    response = api.post(url, _body(url, transcript), content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["details"]["field"] == field
    assert f"({field})" in error["message"], error["message"]
    assert "turns[" not in error["message"].replace("transcript.turns[", "")
    assert not MemoryCheck.objects.exists() and not MemoryTranscript.objects.exists()
    assert not Source.objects.exists()
