"""POST /worker/verify with the judge down says so in ``reconciliation_reasons``: the
answer is UNVERIFIABLE for want of a judge, not of evidence (a real local
chat-completions server answering 503, the real judge client, corpus and API)."""

from __future__ import annotations

import json

from tests.verifier.api.conftest import client_for
from tests.verifier.claim_worker.test_worker_verify_api import corpus, verify  # noqa: F401
from tests.verifier.judges.chat_server import ChatServer
from verifier.claim_worker.package import judge_gap_reasons
from verifier.claim_worker.trust import Stance, TrustEvidence


def test_the_judge_down_is_a_reconciliation_reason(corpus, settings) -> None:  # noqa: F811
    reply = (503, json.dumps({"error": "overloaded"}), 0, {"Retry-After": "0"})
    with ChatServer(lambda request, call: reply) as server:
        settings.SPANPROOF_JUDGE = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "llama-3-judge",
            "family": "llama",
            "timeout": 5,
        }
        resp = verify(client_for(corpus), claim="The Halden Point lighthouse was built in 1871.")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["verdict"] == "UNVERIFIABLE"
    assert body["evidence"] and all(
        s["label"] == "coverage_gap" for e in body["evidence"] for s in e["stances"]
    )
    [reason] = [r for r in body["reconciliation_reasons"] if r.startswith("judge_no_answer")]
    stances = sum(len(e["stances"]) for e in body["evidence"])
    assert reason.startswith(f"judge_no_answer: {stances} of {stances} stances: transport_error")
    assert ": transport_error: http 503" in reason


def test_a_judge_that_answered_every_stance_adds_no_reason() -> None:
    answered = TrustEvidence("a", "x", 0.9, 0.9, stances={0: Stance("entailed", 0.9)})
    omitted = TrustEvidence("b", "x", 0.5, 0.5, stances={0: Stance("coverage_gap", 0, "omitted")})
    assert judge_gap_reasons([answered]) == []
    assert judge_gap_reasons([answered, omitted]) == ["judge_no_answer: 1 of 2 stances: omitted"]
