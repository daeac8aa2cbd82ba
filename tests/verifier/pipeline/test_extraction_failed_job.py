"""An ingest job whose extractor failed says so: not "succeeded" with a notice that the
source has no statement in it (a real local chat-completions server answering 503, the
real extractor client, database, API, console and webhook)."""

from __future__ import annotations

import json

from tests.verifier.api.conftest import client_for
from tests.verifier.judges.chat_server import ChatServer, completion
from tests.verifier.pipeline.conftest import DOC_A
from tests.verifier.pipeline.receiver import Receiver
from verifier.models import IngestStatus, WebhookDelivery
from verifier.services.webhooks import webhook_create

DOWN = "Fishing boats leave the harbour before dawn each morning in summer."


def _extractor(settings, server: ChatServer) -> None:
    settings.SPANPROOF_EXTRACTOR = {
        "backend": "openai",
        "base_url": server.base_url,
        "model": "qwen2.5-7b-instruct",
        "timeout": 5,
    }


def test_a_job_whose_only_source_failed_extraction_is_degraded_saying_why(
    workspace, settings, run_job, reviewer_client
) -> None:
    with ChatServer(lambda request, call: (503, json.dumps({"error": "overloaded"}))) as server:
        _extractor(settings, server)
        with Receiver() as receiver:
            webhook_create(
                workspace=workspace,
                url=receiver.url,
                secret="s3cret-for-webhook-tests",
                events=["job.completed"],
            )
            job = run_job(workspace, docs={"source:x": DOWN})
    [error] = job.errors
    assert error["stage"] == "extract" and "http 503" in error["error"]
    assert job.status == IngestStatus.DEGRADED
    [warning] = job.warnings
    assert warning["code"] == "extraction_failed" and warning["count"] == 1
    assert warning["message"].startswith("0 of 1 source extracted: ExtractorUnavailable")
    assert "http 503" in warning["message"]
    assert job.quality_report["notices"] == []

    body = client_for(workspace).get(f"/connect/v1/ingest-jobs/{job.pk}").json()
    assert body["status"] == "degraded" and body["warnings"] == job.warnings
    assert "no sentence reads as a statement" not in json.dumps(body)

    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert "0 of 1 source extracted" in page
    assert "no sentence reads as a statement" not in page

    [request] = receiver.requests
    payload = json.loads(request["body"])
    assert payload["job"]["status"] == "degraded"
    assert payload["job"]["warnings"] == job.warnings
    assert payload["report"]["notices"] == []
    assert WebhookDelivery.objects.get().status == "delivered"


def test_a_source_that_failed_extraction_is_no_notice_beside_one_that_went_through(
    workspace, settings, run_job
) -> None:
    def reply(request, call):
        if "Fishing boats" in request["messages"][-1]["content"]:
            return 503, json.dumps({"error": "overloaded"})
        claims = [{"text": "Sediment settles where the current slows near Halden Point."}]
        claims[0]["quote"] = claims[0]["text"]
        return 200, completion(json.dumps({"claims": claims}))

    with ChatServer(reply) as server:
        _extractor(settings, server)
        job = run_job(workspace, docs={"source:delta": DOC_A, "source:x": DOWN})
    [error] = job.errors
    assert error["stage"] == "extract"
    # the other source was read: the job goes on with it, as before
    assert job.status == IngestStatus.SUCCEEDED and job.warnings == []
    assert job.quality_report["claims"] >= 1
    assert not [n for n in job.quality_report["notices"] if n["source"] == "source:x"]
