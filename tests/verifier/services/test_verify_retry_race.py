"""A claims/verify retry (the same ``external_id``) sent while the first request's job is
still judging the claim finds it not judged yet, so it verifies it too (its row is never
"not judged yet"). It waits for the job's row lock; then the claim has the job's result,
which the retry answers: the judge reads the claim once, as the API promises for a
retry with external ids. Without the re-check under the lock the retry judged it again
and its history held the answer twice. Two threads on the real database, each with its
own connection."""

from __future__ import annotations

import threading

import pytest

from tests.races import at_first_statement, run_together, waiting_for
from verifier.models import Claim, Verdict
from verifier.services.claim_verification import (
    ClaimSubmission,
    claims_submit,
    claims_submit_and_verify,
    claims_verify_submitted,
)
from verifier.services.sources import source_upsert

REF = "source:tarn"
SENTENCE = "Tarn Point Light was first lit on 3 November 1858."
CLAIM = ClaimSubmission(text=SENTENCE, source=REF, external_id="tarn-1")

APPEND_VERDICT = ('INSERT INTO "verifier_verdict"',)
READ_BY_EXTERNAL_ID = ('FROM "verifier_claim"', '"external_id" IN')


@pytest.mark.django_db(transaction=True)
def test_a_retry_while_the_job_judges_its_claim_answers_the_jobs_result(workspace):
    source_upsert(workspace=workspace, ref=REF, text=f"{SENTENCE} The keepers left in 1987.")
    claim = claims_submit(workspace=workspace, claims=[CLAIM]).items[0].claim
    assert claim is not None
    retry_read = threading.Event()
    answered = {}

    def job_chunk() -> None:
        claims_verify_submitted(workspace=workspace, claims=[claim])

    def retry() -> None:
        batch = claims_submit_and_verify(workspace=workspace, claims=[CLAIM])
        answered["reused"] = batch.items[0].reused

    errors = run_together(
        # the job judges once the retry has read the claim as not judged yet
        (job_chunk, at_first_statement(*APPEND_VERDICT, before=waiting_for(retry_read))),
        (retry, at_first_statement(*READ_BY_EXTERNAL_ID, after=retry_read.set)),
    )

    assert not errors, errors
    assert answered == {"reused": True}
    assert Verdict.objects.filter(claim=claim).count() == 1
    claim.refresh_from_db()
    assert claim.quality and claim.state_reason not in ("not_judged", "stale_source")
    assert Claim.objects.filter(workspace=workspace).count() == 1
