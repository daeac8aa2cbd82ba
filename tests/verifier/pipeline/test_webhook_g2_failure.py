"""A job that failed the G2 gate is a quality failure pushed to the quality webhook even
when its trust score is at or above the webhook's threshold (seed 000: "quality failures
are pushed to you"); the payload says why. A real local chat-completions judge that
abstains on every claim (so none is supported), the real pipeline and a real receiver."""

from __future__ import annotations

import json

from tests.verifier.judges.chat_server import ChatServer, answer, completion, items_of
from tests.verifier.pipeline.conftest import DOC_A
from tests.verifier.pipeline.receiver import Receiver
from verifier.services.webhooks import quality_failures, webhook_create

SECRET = "s3cret-for-webhook-tests"


def _abstains(request, call):
    results = [
        {"key": it["key"], "label": "abstained", "confidence": 0.9, "note": "cannot tell"}
        for it in items_of(request)
    ]
    return 200, completion(answer(results))


def test_a_g2_failure_fires_the_quality_webhook_above_the_threshold(
    workspace, settings, run_job
) -> None:
    with ChatServer(_abstains) as server:
        settings.SPANPROOF_JUDGE = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "llama-3-judge",
            "family": "llama",
            "timeout": 5,
        }
        with Receiver() as receiver:
            webhook_create(
                workspace=workspace,
                url=receiver.url,
                secret=SECRET,
                events=["job.quality_below_threshold"],
                threshold=1,
            )
            job = run_job(workspace, docs={"source:delta": DOC_A})
    report = job.quality_report
    assert report["claims"] > 0
    assert report["quality"]["g2"]["passed"] is False
    assert report["trust"]["score"] >= 1  # not below the threshold: G2 alone fires it
    [request] = receiver.requests
    assert request["headers"]["X-Spanproof-Event"] == "job.quality_below_threshold"
    payload = json.loads(request["body"])
    [failure] = payload["quality_failures"]
    assert failure["code"] == "g2_failed"
    assert failure["message"] == "The G2 gate failed: supported 0% < 90%."
    assert payload["report"]["quality"]["g2"]["passed"] is False


def _report(*, claims: int = 5, trust: int = 97, g2: bool | None = True) -> dict:
    shortfalls = [] if g2 is not False else ["supported 0% < 90%"]
    return {
        "claims": claims,
        "trust": {"score": trust},
        "quality": {"g2": {"passed": g2, "shortfalls": shortfalls}},
    }


def test_the_quality_failures_name_each_reason() -> None:
    assert quality_failures(_report(), 90) == []
    assert [f["code"] for f in quality_failures(_report(g2=False), 90)] == ["g2_failed"]
    both = quality_failures(_report(trust=72, g2=False), 90)
    assert [f["code"] for f in both] == ["trust_below_threshold", "g2_failed"]
    assert both[0]["message"] == "The trust score 72 is below the threshold 90."
    # G2 not measured (nothing validated) is no failure; a job with no claims has none
    assert quality_failures(_report(g2=None), 90) == []
    assert quality_failures(_report(claims=0, trust=0, g2=False), 90) == []
