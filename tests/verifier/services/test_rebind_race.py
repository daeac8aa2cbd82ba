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

import pytest

from tests.races import WAIT_S, at_first_statement, run_together, waiting_for
from verifier.models import Claim, EvidenceBinding, SourceVersion
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit,
    claims_verify_submitted,
)
from verifier.services.sources import source_claims_rebind, source_upsert

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

    errors = run_together(
        (
            batch,
            at_first_statement(
                *INSERT_SPAN, after=lambda: (batch_bound.set(), job_read.wait(WAIT_S))
            ),
        ),
        (
            job,
            at_first_statement(
                *READ_ACTIVE_SPANS, before=waiting_for(batch_bound), after=job_read.set
            ),
        ),
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

    errors = run_together(
        (
            batch,
            at_first_statement(*LOCK_CLAIMS, before=waiting_for(job_bound), after=batch_locked.set),
        ),
        (
            job,
            at_first_statement(
                *INSERT_SPAN, after=lambda: (job_bound.set(), batch_locked.wait(WAIT_S))
            ),
        ),
    )

    assert not errors, errors
    _one_active_span_in(claim, newest)
    claim.refresh_from_db()
    assert claim.state_reason != "stale_source"
