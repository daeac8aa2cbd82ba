"""Users' reports on the memory verifier through the API and the console (fixmem): a
true "you said", turns out of order, bad turns, every claim of a message shown, and
headlines that say why a claim could not be checked."""

from __future__ import annotations

import json
import re

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import MemoryCheck, MemoryTranscript

VERIFY = "/connect/v1/memory/verify"
HARBOUR_TURNS = [
    {"speaker": "user", "text": "How long is the harbour wall?"},
    {"speaker": "bot", "text": "The harbour wall is 412 metres long and was rebuilt in 1998."},
]
HARBOUR = (
    "I said 'The harbour wall is 412 metres long'. I mentioned that the wall was rebuilt in 2001."
)


def post(client, body):
    return client.post(VERIFY, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.mark.django_db
def test_a_true_you_said_is_out_of_scope_through_the_api(api):
    body = {
        "agent": "assistant",
        "message": 'You said "My flight lands at 9pm on Thursday."',
        "transcript": [
            {"speaker": "user", "text": "My flight lands at 9pm on Thursday."},
            {"speaker": "assistant", "text": "Noted, I will arrange a taxi."},
        ],
    }
    response = post(api, body)
    assert response.status_code == 200, response.content
    (claim,) = response.json()["claims"]
    assert claim["outcome"] == "inconclusive:insufficient"
    assert claim["reason"] == "out_of_scope" and claim["actor"] == "addressee"


@pytest.mark.django_db
def test_turns_sent_out_of_order_are_the_same_transcript(api):
    turns = [dict(t, idx=i) for i, t in enumerate(HARBOUR_TURNS)]
    message = "I said 'The harbour wall is 412 metres long'."
    first = post(api, {"agent": "bot", "message": message, "transcript": turns[::-1]}).json()
    second = post(api, {"agent": "bot", "message": message, "transcript": turns}).json()
    assert first["transcript"]["complete"] is True
    assert first["transcript"]["sha256"] == second["transcript"]["sha256"]
    assert MemoryTranscript.objects.count() == 1
    assert first["claims"][0]["outcome"] == "supported:exact"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("turn", "field"),
    [
        ({"speaker": "bot", "text": ""}, "transcript[1].text"),
        ({"speaker": 3, "text": "hi"}, "transcript[1].speaker"),
        ({"speaker": "bot", "text": "hi", "idx": "x"}, "transcript[1].idx"),
    ],
)
def test_a_bad_turn_is_a_400_naming_the_turn_and_nothing_is_stored(api, turn, field):
    body = {
        "agent": "bot",
        "message": "I said 'hi'",
        "transcript": [{"speaker": "user", "text": "Hello."}, turn],
    }
    response = post(api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_turn" and error["details"]["field"] == field
    assert f"Turn 1 ({field})" in error["message"]
    assert not MemoryCheck.objects.exists() and not MemoryTranscript.objects.exists()


@pytest.mark.django_db
def test_an_idx_given_twice_is_a_400(api):
    turns = [dict(t, idx=0) for t in HARBOUR_TURNS]
    response = post(api, {"agent": "bot", "message": "I said 'x y'", "transcript": turns})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "duplicate_idx"
    assert not MemoryCheck.objects.exists()


@pytest.mark.django_db
def test_every_claim_of_a_message_is_shown_with_its_outcome(reviewer_client):
    response = reviewer_client.post(
        "/audit/memory/",
        {"agent": "bot", "message": HARBOUR, "transcript": json.dumps(HARBOUR_TURNS)},
    )
    first, second = MemoryCheck.objects.order_by("claim_start")
    assert first.outcome == "supported:exact"
    assert response.status_code == 302
    assert response["Location"] == (
        f"/audit/memory/checks/{first.pk}/?claims={first.pk}%2C{second.pk}"
    )
    html = reviewer_client.get(response["Location"]).content.decode()
    assert "This message's claims (2)" in html
    section = html[html.index("message-claims-h") :]
    assert "Said, word for word" in section and "supported:exact" in section
    assert second.outcome in section and "Not enough transcript" not in section
    assert "the wall was rebuilt in 2001" in section
    # the other claim is linked, keeping the list; this one is marked, not linked
    link = f'href="/audit/memory/checks/{second.pk}/?claims={first.pk}%2C{second.pk}"'
    assert link in section
    assert 'aria-current="true"' in section
    other = reviewer_client.get(
        f"/audit/memory/checks/{second.pk}/?claims={first.pk}%2C{second.pk}"
    ).content.decode()
    assert "This message's claims (2)" in other
    assert f'href="/audit/memory/checks/{first.pk}/?claims=' in other


@pytest.mark.django_db
def test_the_list_shows_only_checks_of_the_same_message(reviewer_client, workspace):
    from verifier.services.memory import memory_verify

    mine = memory_verify(
        workspace=workspace, agent="bot", message=HARBOUR, transcript_data=HARBOUR_TURNS
    )
    unrelated = memory_verify(
        workspace=workspace,
        agent="bot",
        message="I said 'The harbour wall is 412 metres long'.",
        transcript_data=HARBOUR_TURNS,
    )
    ids = [c.pk for c in mine.checks]
    strange = ",".join(str(i) for i in [*ids, unrelated.checks[0].pk, 0]) + ",x,²,-3,99999999"
    page = reviewer_client.get(f"/audit/memory/checks/{ids[0]}/", {"claims": strange})
    assert page.status_code == 200
    html = page.content.decode()
    assert "This message's claims (2)" in html
    alone = reviewer_client.get(
        f"/audit/memory/checks/{unrelated.checks[0].pk}/", {"claims": strange}
    ).content.decode()
    assert "This message's claims" not in alone


@pytest.mark.django_db
def test_a_single_claim_redirects_without_a_list(reviewer_client):
    response = reviewer_client.post(
        "/audit/memory/",
        {
            "agent": "bot",
            "message": "I said 'The harbour wall is 412 metres long'.",
            "transcript": json.dumps(HARBOUR_TURNS),
        },
    )
    check = MemoryCheck.objects.get()
    assert response["Location"] == f"/audit/memory/checks/{check.pk}/"


def _headline(html: str) -> str:
    return re.sub(r"\s+", " ", re.search(r"<h1>(.*?)</h1>", html, re.S).group(1))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("agent", "message", "words"),
    [
        ("nobody", "I said 'The harbour wall is 412 metres long'.", "Agent not in transcript"),
        ("bot", "The harbour wall is long.", "Out of scope"),
        ("bot", "As discussed, the wall is long.", "Out of scope"),
    ],
)
def test_the_headline_says_why_a_claim_could_not_be_checked(reviewer_client, agent, message, words):
    response = reviewer_client.post(
        "/audit/memory/",
        {"agent": agent, "message": message, "transcript": json.dumps(HARBOUR_TURNS)},
    )
    check = MemoryCheck.objects.get()
    assert check.outcome == "inconclusive:insufficient"
    html = reviewer_client.get(response["Location"]).content.decode()
    headline = _headline(html)
    assert words in headline and "Not enough transcript" not in headline
    assert "does not reach back far enough" not in html
    index = reviewer_client.get("/audit/memory/").content.decode()
    assert words in index and "Not enough transcript" not in index


@pytest.mark.django_db
def test_missing_turns_are_still_headed_not_enough_transcript(reviewer_client):
    gap = [dict(t, idx=i) for i, t in zip((0, 2), HARBOUR_TURNS, strict=True)]
    response = reviewer_client.post(
        "/audit/memory/",
        {
            "agent": "bot",
            "message": "I said 'The harbour wall is 300 metres long and was rebuilt in 1998.'",
            "transcript": json.dumps(gap),
        },
    )
    check = MemoryCheck.objects.get()
    assert check.result["reason"] == "coverage_incomplete"
    html = reviewer_client.get(response["Location"]).content.decode()
    assert "Not enough transcript" in _headline(html)


def test_every_reason_a_check_gives_has_words_of_its_own():
    """The headline of an ``inconclusive:insufficient`` check is its reason's label, read
    from the vocabulary, never the code shown as words."""
    from verifier import vocabulary
    from verifier.memory import INSUFFICIENT_REASONS

    assert set(vocabulary.MEMORY_REASONS) == set(INSUFFICIENT_REASONS)
    for reason in INSUFFICIENT_REASONS:
        assert vocabulary.explanation("memory_reason", reason), reason
