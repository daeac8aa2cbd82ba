"""A RAG audit whose judge gave no answer (a chat judge answering 503, a malformed reply)
never reads as a finding about the chunks: the claim is ``unsupported`` (it has not earned
``supported``) and its note says it was not judged and why; no "does not back it", no
suggested fix drawn from it, and the answer says the judge gave no answer. A real local
chat-completions server, the real client, judge, database, API and console."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.judges.chat_server import ChatServer, answer, completion, items_of
from verifier.judges import build_judge
from verifier.models import Claim, RagAudit, Verdict
from verifier.rag import audit_answer, parse_chunks

URL = "/connect/v1/rag/audit"
CHUNKS = [
    {"id": "c1", "text": "Tarn Point Light was first lit in 1870."},
    {"id": "c2", "text": "Automation of the light came in 1987."},
]
ANSWER = "Automation of the light came in 1987 [c2]."
SPAN = "Automation of the light came in 1987"  # the claim's span, without its citation


def _entailed(request, call):
    results = [
        {"key": it["key"], "label": "entailed", "confidence": 0.9, "note": "spans agree"}
        for it in items_of(request)
    ]
    return 200, completion(answer(results))


def _unavailable(request, call):
    return 503, json.dumps({"error": "overloaded"})


def _judge_config(server: ChatServer) -> dict[str, object]:
    return {
        "backend": "openai",
        "base_url": server.base_url,
        "model": "llama-3-judge",
        "family": "llama",
        "timeout": 1.0,
    }


@pytest.fixture(autouse=True)
def _no_retries(monkeypatch) -> None:
    monkeypatch.setenv("SPANPROOF_CHAT_RETRIES", "0")


@pytest.fixture
def down_judge(settings) -> Iterator[ChatServer]:
    with ChatServer(_unavailable) as server:
        settings.SPANPROOF_JUDGE = {**settings.SPANPROOF_JUDGE, **_judge_config(server)}
        yield server


def test_a_working_chat_judge_supports_the_claim() -> None:
    with ChatServer(_entailed) as server:
        result = audit_answer(
            ANSWER, parse_chunks(CHUNKS), judge=build_judge(_judge_config(server))
        )
    (claim,) = result.claims
    assert claim.verdict == "supported" and "c2" in claim.supported_by
    assert "not_judged" not in result.as_dict() and "note" not in result.as_dict()


def test_a_claim_the_judge_never_answered_is_not_a_finding_about_the_chunks() -> None:
    with ChatServer(_unavailable) as server:
        result = audit_answer(
            ANSWER, parse_chunks(CHUNKS), judge=build_judge(_judge_config(server))
        )
    (claim,) = result.claims
    assert claim.verdict == "unsupported"  # never `supported` unread, never `partial`
    assert claim.supported_by == () and claim.label == "coverage_gap"
    assert claim.note.startswith("not judged: the judge gave no answer (transport_error: http 503")
    assert "does not back" not in claim.note and "partly backed" not in claim.note
    body = result.as_dict()
    assert "suggested_fix" not in body  # nothing to rewrite from: no chunk was read
    assert body["not_judged"] == [SPAN] and body["unsupported"] == [SPAN]
    assert body["note"].startswith("the judge gave no answer for 1 of 1 claims")


def test_a_malformed_answer_is_named_too() -> None:
    with ChatServer(lambda request, call: (200, completion("not json"))) as server:
        result = audit_answer(
            ANSWER, parse_chunks(CHUNKS), judge=build_judge(_judge_config(server))
        )
    (claim,) = result.claims
    assert claim.verdict == "unsupported"
    assert claim.note.startswith("not judged: the judge gave no answer (malformed_answer")


def test_only_the_claims_the_judge_did_answer_shape_the_fix() -> None:
    def reply(request, call):
        # the claim about 1870 is answered; the one about 1987 is not
        items = items_of(request)
        if any("1987" in json.dumps(it) for it in items):
            return 503, "{}"
        return _entailed(request, call)

    answer_text = f"Tarn Point Light was first lit in 1870 [c1]. {ANSWER}"
    with ChatServer(reply) as server:
        result = audit_answer(
            answer_text,
            parse_chunks(CHUNKS),
            judge=build_judge({**_judge_config(server), "batch_size": 1}),
        )
    first, second = result.claims
    assert first.verdict == "supported"
    assert second.verdict == "unsupported" and second.note.startswith("not judged")
    body = result.as_dict()
    assert body["not_judged"] == [SPAN]
    assert body["note"].startswith("the judge gave no answer for 1 of 2 claims")
    # the unjudged claim is kept as written, neither dropped nor restated from a chunk
    assert body["suggested_fix"] == answer_text


@pytest.mark.django_db
def test_the_api_and_the_console_say_the_judge_gave_no_answer(
    workspace, reviewer_client, down_judge
) -> None:
    response = client_for(workspace).post(
        URL, data=json.dumps({"answer": ANSWER, "chunks": CHUNKS}), content_type="application/json"
    )
    # as claims/verify: a judge outage is answered claim by claim, not as an error
    assert response.status_code == 200, response.content
    body = response.json()
    (claim,) = body["claims"]
    assert claim["verdict"] == "unsupported" and claim["supported_by"] == []
    assert claim["note"].startswith("not judged: the judge gave no answer (transport_error")
    assert "does not back" not in claim["note"]
    assert "suggested_fix" not in body and body["not_judged"] == [SPAN]

    stored = Claim.objects.get(workspace=workspace, original_text=SPAN)
    assert Verdict.objects.filter(claim=stored).latest("pk").label == "coverage_gap"
    assert stored.state_reason == "coverage_gap"

    audit = RagAudit.objects.get(workspace=workspace)
    page = reviewer_client.get(response["Location"]).content.decode()
    assert audit.result["not_judged"] == [SPAN]
    assert 'id="rag-not-judged"' in page
    assert "The judge gave no answer for 1 of 1 claim<" in page
    assert "not judged: the judge gave no answer" in page
    assert "does not back the claim" not in page
    assert "the judge gave no answer on this passage" in page


@pytest.mark.django_db
def test_auditing_again_once_the_judge_answers_gives_the_stored_claim_its_verdict(
    workspace, settings
) -> None:
    def on_c2(request, call):
        results = [
            {
                "key": it["key"],
                "label": "abstained" if "first lit" in json.dumps(it) else "entailed",
                "confidence": 0.9,
                "note": "",
            }
            for it in items_of(request)
        ]
        return 200, completion(answer(results))

    api = client_for(workspace)
    body = json.dumps({"answer": ANSWER, "chunks": CHUNKS})
    for reply, verdict in ((_unavailable, "unsupported"), (on_c2, "supported")):
        with ChatServer(reply) as server:
            settings.SPANPROOF_JUDGE = {**settings.SPANPROOF_JUDGE, **_judge_config(server)}
            response = api.post(URL, data=body, content_type="application/json")
        assert response.json()["claims"][0]["verdict"] == verdict, response.content
    # the same claim, no longer left at the outage's "the judge gave no answer"
    stored = Claim.objects.get(workspace=workspace, original_text=SPAN)
    assert Verdict.objects.filter(claim=stored).latest("pk").label == "entailed"
    assert stored.state == "supported"
