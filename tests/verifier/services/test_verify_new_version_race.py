"""A claims/verify batch binds its claims while ``POST /connect/v1/sources`` stores a new
version of the source they cite, whose words for them are unchanged, and its re-binding
job runs (``source_claims_rebind``). The batch must hold the version it binds in until
it commits (``source_versions_hold``): unheld, the new version's writer re-resolved the
claims bound to earlier versions before the batch's spans were committed, and its job
read the source's claims before the batch's claims were, so neither saw them, and the
batch committed them bound in the earlier version, ``unverified · stale_source`` for
good, although the sentence they cite is word for word in the current version. Two
threads on the real database, each with its own connection."""

from __future__ import annotations

import contextlib
import threading

import pytest

from tests.races import WAIT_S, at_first_statement, run_together
from verifier.models import Claim, EvidenceBinding, SourceVersion
from verifier.selectors.claim_state import claim_state_inputs
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit_and_verify,
)
from verifier.services.sources import source_claims_rebind, source_upsert
from verifier.state_policy import state_policy
from verifier.states import resolve_state

REF = "source:tarn"
OTHER_REF = "source:pier"
SENTENCE = "Tarn Point Light was first lit on 3 November 1858."
V1 = f"{SENTENCE} The keepers left in 1987."
V2 = f"{V1} The lamp is now solar."

INSERT_SPAN = ('INSERT INTO "verifier_evidencebinding"',)


def _stored_state_is_the_state_functions(claim: Claim) -> None:
    claim.refresh_from_db()
    inputs, _ = claim_state_inputs(claim=claim)
    decision = resolve_state(inputs, state_policy())
    assert (claim.state, claim.state_reason) == (decision.state.value, decision.reason.value)


def _models_loaded(workspace) -> None:
    """Verify a claim of another source first: the embedding model and the judge load
    before the race, not within its waits."""
    source_upsert(workspace=workspace, ref=OTHER_REF, text="The pier is 412 metres long.")
    claims_submit_and_verify(
        workspace=workspace,
        claims=[ClaimSubmission(text="The pier is 412 metres long.", source=OTHER_REF)],
    )


@pytest.mark.django_db(transaction=True)
def test_a_new_version_stored_while_a_batch_binds_its_claims_leaves_them_current(workspace):
    source_upsert(workspace=workspace, ref=REF, text=V1)
    _models_loaded(workspace)
    batch_bound, version_stored = threading.Event(), threading.Event()

    def batch() -> None:
        claims_submit_and_verify(
            workspace=workspace, claims=[ClaimSubmission(text=SENTENCE, source=REF)]
        )

    def new_version() -> None:  # POST /connect/v1/sources, then its re-binding job
        batch_bound.wait(WAIT_S)
        version = source_upsert(workspace=workspace, ref=REF, text=V2).version
        source_claims_rebind(version=version, why="sources API: new version v2")
        version_stored.set()

    errors = run_together(
        (
            batch,
            at_first_statement(
                *INSERT_SPAN, after=lambda: (batch_bound.set(), version_stored.wait(WAIT_S))
            ),
        ),
        (new_version, at_first_statement("never")),
    )

    assert not errors, errors
    newest = SourceVersion.objects.get(source__ref=REF, number=2)
    claim = Claim.objects.get(workspace=workspace, text=SENTENCE)
    active = list(EvidenceBinding.objects.filter(claim=claim, is_active=True))
    assert [b.source_version_id for b in active] == [newest.pk]
    _stored_state_is_the_state_functions(claim)
    assert claim.state_reason != "stale_source"


@pytest.mark.django_db(transaction=True)
def test_batches_storing_one_source_and_citing_the_other_both_finish(workspace):
    """Each batch stores one source inline (a new version) and cites the other: each
    takes both sources' row locks, in one order, so neither waits for the other for ever
    (PostgreSQL ended one with a deadlock: a 500)."""
    source_upsert(workspace=workspace, ref=REF, text=V1)
    _models_loaded(workspace)
    meet = threading.Barrier(2)

    def batch(stored: str, text: str, cited: str, claim: str):
        def call() -> None:
            claims_submit_and_verify(
                workspace=workspace,
                sources=[SourceSubmission(ref=stored, text=text)],
                claims=[ClaimSubmission(text=claim, source=cited)],
            )

        return call

    def after_the_first_source_lock(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if 'FROM "verifier_source"' in sql and "FOR" in sql and not meet.broken:
            with contextlib.suppress(threading.BrokenBarrierError):
                meet.wait(WAIT_S)
        return result

    errors = run_together(
        (
            batch(REF, V2, OTHER_REF, "The pier is 412 metres long."),
            after_the_first_source_lock,
        ),
        (
            batch(OTHER_REF, "The pier is 412 metres long. It was built in 1902.", REF, SENTENCE),
            after_the_first_source_lock,
        ),
    )

    assert not errors, errors
    for claim in Claim.objects.filter(workspace=workspace):
        _stored_state_is_the_state_functions(claim)
