"""Celery task of the claim verification worker: the stored claim's pass through the
one chain (bind, judge, state) runs after the response, off the request path."""

from __future__ import annotations

from celery import shared_task

from verifier.services.claim_worker_storage import worker_stored_claim_verify
from verifier.services.enqueue import WORKER_CLAIM_VERIFY


# Registered under the name it had before the feature's modules were renamed (queued
# messages carry it); ``services.enqueue`` holds it.
@shared_task(name=WORKER_CLAIM_VERIFY)
def worker_claim_verify(claim_id: int) -> str:
    return worker_stored_claim_verify(claim_id=claim_id)
