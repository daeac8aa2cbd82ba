"""Two calls at once that store the same sources listed in other orders (a RAG audit's
chunks, a claims/verify batch's inline sources) store them one after the other, each under
the source's row lock: they must take those locks in one order (the stored ref's), or each
holds a source the other waits for and PostgreSQL ends one of them with a deadlock (a 500
at ``POST /connect/v1/rag/audit`` or ``/connect/v1/claims/verify``). Two threads on the
real database, each with its own connection."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from verifier.models import Claim, IngestJob, RagAudit, Source
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit,
)
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.rag_audit import rag_audit_run

WAIT_S = 5

CHUNKS = [
    {"id": "c1", "text": "Tarn Point Light was first lit on 3 November 1858."},
    {"id": "c2", "text": "The station was electrified in 1931 and automated in 1987."},
]
ANSWER = "Tarn Point Light was first lit on 3 November 1858 [c1]. It was electrified in 1931 [c2]."


def _jsonl(chunks: list[dict[str, str]]) -> str:
    return "".join(json.dumps(chunk) + "\n" for chunk in chunks)


def _locks_rows(sql: str) -> bool:
    """A row lock that writers of the source take (FOR NO KEY UPDATE, or FOR UPDATE)."""
    return "FOR UPDATE" in sql or "FOR NO KEY UPDATE" in sql


def _meet_after_the_first_source_lock(meet: threading.Barrier) -> Callable[..., Any]:
    """An execute wrapper: once this audit holds its first source's row lock, it waits
    (a while, not for ever) for the other audit to hold one too. Taken in one order, the
    other audit waits for that same lock in the database instead and never arrives."""
    met = False

    def wrapper(execute, sql, params, many, context):
        nonlocal met
        result = execute(sql, params, many, context)
        if not met and 'FROM "verifier_source"' in sql and _locks_rows(sql):
            met = True
            with contextlib.suppress(threading.BrokenBarrierError):
                meet.wait(WAIT_S)
        return result

    return wrapper


@pytest.mark.django_db(transaction=True)
def test_two_audits_listing_the_same_chunks_in_other_orders_do_not_deadlock(workspace):
    rag_audit_run(workspace=workspace, answer=ANSWER, chunks=_jsonl(CHUNKS))  # the sources

    def audit(chunks: list[dict[str, str]]) -> None:
        rag_audit_run(workspace=workspace, answer=ANSWER, chunks=_jsonl(chunks))

    errors = _race(audit, CHUNKS, CHUNKS[::-1])

    assert not errors, errors
    assert RagAudit.objects.count() == 3
    assert Source.objects.filter(workspace=workspace).count() == 2


def _race(call: Callable[[Any], Any], first: Any, second: Any) -> list[BaseException]:
    """``call`` with ``first`` and ``second`` at once, each in its own thread, meeting
    after their first source lock; the errors they raised."""
    start, meet = threading.Barrier(2), threading.Barrier(2)
    errors: list[BaseException] = []

    def run(argument: Any) -> None:
        try:
            start.wait(WAIT_S)
            with connection.execute_wrapper(_meet_after_the_first_source_lock(meet)):
                call(argument)
        except BaseException as exc:  # surfaced by the caller
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(a,)) for a in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(6 * WAIT_S)
    return errors


@pytest.mark.django_db(transaction=True)
def test_two_batches_sending_the_same_sources_in_other_orders_do_not_deadlock(workspace):
    sources = [
        SourceSubmission(ref="source:tarn", text="Tarn Point Light was first lit in 1858."),
        SourceSubmission(ref="source:hale", text="Tomas Hale was the last resident keeper."),
    ]
    claim = ClaimSubmission(text="Tarn Point Light was first lit in 1858.", source="source:tarn")
    claims_submit(workspace=workspace, claims=[claim], sources=sources)  # the sources

    def submit(listed: list[SourceSubmission]) -> None:
        claims_submit(workspace=workspace, claims=[claim], sources=listed)

    errors = _race(submit, sources, sources[::-1])

    assert not errors, errors
    assert Source.objects.filter(workspace=workspace).count() == 2
    assert Claim.objects.filter(workspace=workspace).count() == 3


@pytest.mark.django_db(transaction=True)
def test_two_ingest_jobs_uploading_the_same_sources_in_other_orders_do_not_deadlock(workspace):
    uploads = [
        SourceUpload(ref="source:tarn", text="Tarn Point Light was first lit in 1858."),
        SourceUpload(ref="source:hale", text="Tomas Hale was the last resident keeper."),
    ]
    ingest_job_create(workspace=workspace, sources=uploads, start=False)  # the sources
    changed = [SourceUpload(ref=u.ref, text=u.text + " It is so recorded.") for u in uploads]

    made: dict[str, int] = {}

    def upload(listed: list[SourceUpload]) -> None:
        job = ingest_job_create(workspace=workspace, sources=listed, start=False)
        made[listed[0].ref] = job.pk

    errors = _race(upload, changed, changed[::-1])

    assert not errors, errors
    assert Source.objects.filter(workspace=workspace).count() == 2
    assert IngestJob.objects.filter(workspace=workspace).count() == 3
    # each job lists its sources in the order they were uploaded, whatever order stored them
    for first, listed in (("source:tarn", changed), ("source:hale", changed[::-1])):
        payload = IngestJob.objects.get(pk=made[first]).payload
        assert [s["ref"] for s in payload["sources"]] == [u.ref for u in listed]
