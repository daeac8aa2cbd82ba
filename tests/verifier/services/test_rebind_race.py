"""A claims/verify batch binds its new claims while a re-binding job binds the same
source's claims again in a newer version (``source_claims_rebind``, queued by a separate
``POST /connect/v1/sources``, whose job does not know the batch's claims: only the
batch's own job leaves them alone, ``exclude_claims``). Both bind the batch's claim: each
must wait for the other's span before reading the claim's active span, so the second one
finds the first one's span (current: nothing to do; earlier version: bound again), and
the claim keeps one active span. Read unlocked, the second one inserts a second active
span (the unique constraint ends the job with an IntegrityError, and the claim stays
unbound in the newest version) or the two wait for each other (a deadlock). Two threads
on the real database, each with its own connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from verifier.models import Claim, EvidenceBinding, SourceVersion
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit,
    claims_verify_submitted,
)
from verifier.services.sources import source_claims_rebind, source_upsert

WAIT_S = 5

REF = "source:tarn"
SENTENCE = "Tarn Point Light was first lit on 3 November 1858."
V1 = f"{SENTENCE} The keepers left in 1987."
V2 = f"{SENTENCE} The keepers left in 1987. The lamp is now solar."
V3 = f"{SENTENCE} The keepers left in 1987. The lamp is now solar. Visits are on Sundays."


def _batch_claim_and_newer_version(workspace) -> tuple[Claim, SourceVersion]:
    """A batch that sent the source's v2 inline and a claim citing it (stored, not yet
    verified), then ``POST /connect/v1/sources`` with v3 (stored; its job not run yet)."""
    source_upsert(workspace=workspace, ref=REF, text=V1)
    batch = claims_submit(
        workspace=workspace,
        claims=[ClaimSubmission(text=SENTENCE, source=REF)],
        sources=[SourceSubmission(ref=REF, text=V2)],
    )
    claim = batch.items[0].claim
    assert claim is not None and claim.pk is not None
    newest = source_upsert(workspace=workspace, ref=REF, text=V3).version
    return claim, newest


def _when(
    sql_has: tuple[str, ...], *, before: Callable[[], None] = lambda: None, after=lambda: None
) -> Callable[..., Any]:
    """An execute wrapper that calls ``before`` / ``after`` around the first statement
    containing all of ``sql_has``."""
    done = False

    def wrapper(execute, sql, params, many, context):
        nonlocal done
        hit = not done and all(part in sql for part in sql_has)
        if hit:
            done = True
            before()
        result = execute(sql, params, many, context)
        if hit:
            after()
        return result

    return wrapper


def _wait(event: threading.Event) -> Callable[[], None]:
    """Wait for ``event`` a while, not for ever: where the other thread waits for our
    lock in the database it never sets it."""
    return lambda: event.wait(WAIT_S) and None


def _run_both(first: tuple[Callable[[], Any], Any], second: tuple[Callable[[], Any], Any]):
    """Each call in its own thread with its execute wrapper; the errors they raised."""
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(call: Callable[[], Any], wrapper: Any) -> None:
        try:
            start.wait(WAIT_S)
            with connection.execute_wrapper(wrapper):
                call()
        except BaseException as exc:  # surfaced by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(12 * WAIT_S)
    return errors


def _one_active_span_in(claim: Claim, version: SourceVersion) -> None:
    active = list(EvidenceBinding.objects.filter(claim=claim, is_active=True))
    assert [b.source_version_id for b in active] == [version.pk]


INSERT_SPAN = ('INSERT INTO "verifier_evidencebinding"',)
READ_ACTIVE_SPANS = ('FROM "verifier_evidencebinding"', '"is_active"', "SELECT")
LOCK_CLAIMS = ('FROM "verifier_claim"', "FOR UPDATE")


@pytest.mark.django_db(transaction=True)
def test_a_rebind_reading_spans_while_the_batch_binds_its_claim_waits_for_its_span(workspace):
    """The batch has bound its claim (not committed) when the other version's job reads
    the claim's active span: the job must wait for the batch's span, not bind a second."""
    claim, newest = _batch_claim_and_newer_version(workspace)
    batch_bound, job_read = threading.Event(), threading.Event()

    def batch() -> None:
        claims_verify_submitted(workspace=workspace, claims=[claim])

    def job() -> None:
        source_claims_rebind(version=newest, why="sources API: new version v3")

    errors = _run_both(
        (batch, _when(INSERT_SPAN, after=lambda: (batch_bound.set(), job_read.wait(WAIT_S)))),
        (job, _when(READ_ACTIVE_SPANS, before=_wait(batch_bound), after=job_read.set)),
    )

    assert not errors, errors
    _one_active_span_in(claim, newest)


@pytest.mark.django_db(transaction=True)
def test_a_batch_binding_its_claim_while_a_rebind_binds_it_waits_for_the_rebind(workspace):
    """The job has bound the batch's claim in the newest version (not committed) when the
    batch starts binding it: the batch must wait for the job, not hold the claim the job
    needs next while waiting for the job's span (a deadlock)."""
    claim, newest = _batch_claim_and_newer_version(workspace)
    job_bound, batch_locked = threading.Event(), threading.Event()

    def batch() -> None:
        claims_verify_submitted(workspace=workspace, claims=[claim])

    def job() -> None:
        source_claims_rebind(version=newest, why="sources API: new version v3")

    errors = _run_both(
        (batch, _when(LOCK_CLAIMS, before=_wait(job_bound), after=batch_locked.set)),
        (job, _when(INSERT_SPAN, after=lambda: (job_bound.set(), batch_locked.wait(WAIT_S)))),
    )

    assert not errors, errors
    _one_active_span_in(claim, newest)
    claim.refresh_from_db()
    assert claim.state_reason != "stale_source"
