"""The queue's bulk send-back through a real Celery worker, with an external judge that
hangs: the request answers at once, no web thread waits on the judge, and a worker
SIGKILLed while the judge hangs is replaced — the job goes on and judges each claim once.

The worker is a real ``celery worker`` process against the test database and a real
broker (``tests/verifier/pipeline/test_worker_killed.py``'s harness); the judge is a
local chat-completions server (``SPANPROOF_JUDGE_BACKEND=openai``) that hangs on its
first request. The test plays the beat: it calls the watchdog until the job ends."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import bulk_seen, queue_claim
from tests.verifier.judges.chat_server import ChatServer, answer, completion, items_of
from tests.verifier.pipeline import test_worker_killed as killed
from tests.verifier.pipeline.test_worker_killed import (
    STALE_SECONDS,
    Worker,
    _wait,
    worker_process_env,
)
from verifier.models import ReviewRejudgeJob, Verdict
from verifier.services.review_rejudge_job_watch import review_rejudge_jobs_watch

broker = killed.broker  # the fixture: a filesystem broker, and Redis where one runs
HANG_SECONDS = 600
JOB_TIMEOUT_SECONDS = 180


def _judge_reply(request: dict, call: int) -> tuple:
    results = [
        {"key": it["key"], "label": "entailed", "confidence": 0.93, "note": "ok"}
        for it in items_of(request)
    ]
    body = completion(answer(results))
    return (200, body, HANG_SECONDS) if call == 0 else (200, body)


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_send_back_survives_its_worker_being_killed_while_the_judge_hangs(broker, tmp_path):
    workspace = make_workspace(f"send-back-{broker['kind']}")
    source = make_source(workspace, ref="source:marrow_delta")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    client = Client()
    client.force_login(reviewer)
    claims = [queue_claim(source, "abstained", text=f"Claim {n}.") for n in "abc"]
    before = {c.pk: Verdict.objects.filter(claim=c).count() for c in claims}
    log = tmp_path / "worker.log"
    with ChatServer(_judge_reply) as judge:
        env = worker_process_env(
            broker_url=broker["url"],
            data=broker["data"],
            SPANPROOF_JOB_STALE_SECONDS=str(STALE_SECONDS),
            SPANPROOF_BROKER_VISIBILITY_TIMEOUT="3600",
            SPANPROOF_JUDGE_BACKEND="openai",
            SPANPROOF_JUDGE_BASE_URL=judge.base_url,
            SPANPROOF_JUDGE_MODEL="test-judge",
            SPANPROOF_JUDGE_FAMILY="testjudge",
            SPANPROOF_JUDGE_TIMEOUT=str(HANG_SECONDS),
        )
        first = Worker(env, broker["queue"], log)
        workers = [first]
        try:
            data = {
                "action": "rejudge",
                "claims": [c.public_id for c in claims],
                "confirm": "on",
                **bulk_seen(*claims),
            }
            response = client.post("/review/bulk/", data)
            job = ReviewRejudgeJob.objects.get(workspace=workspace)
            assert response.status_code == 302
            assert response["Location"] == f"/review/send-back/{job.pk}/"

            # the worker took the job and sits in the judge's (hanging) call
            _wait(lambda: len(judge.requests) >= 1, 120, "the first judge call", workers)
            job.refresh_from_db()
            assert (job.status, job.done) == ("running", 0) and job.runner
            first.kill()

            second = Worker(env, broker["queue"], log)
            workers.append(second)

            def finished() -> bool:
                review_rejudge_jobs_watch()  # what the beat task does every minute
                return ReviewRejudgeJob.objects.get(pk=job.pk).finished

            _wait(finished, JOB_TIMEOUT_SECONDS, "the job to finish", workers)
        finally:
            for worker in workers:
                worker.stop()

    job.refresh_from_db()
    tail = log.read_text(errors="replace")[-3000:]
    assert job.status == "succeeded", (job.status, job.error, tail)
    assert (job.done, job.judged, job.skipped) == (3, 3, [])
    for claim in claims:  # judged once, by the second worker's call
        verdicts = Verdict.objects.filter(claim=claim)
        assert verdicts.count() == before[claim.pk] + 1
        assert verdicts.latest("id").judge_model == "test-judge"
