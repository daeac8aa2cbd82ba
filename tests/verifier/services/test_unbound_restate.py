"""Claims with no span bound that the state rule before 2026-11-28 read as "the judge
could not decide" are re-resolved to ``no_evidence`` when ``migrate`` runs."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim, StateEvent, Verdict
from verifier.services.claim_state import claim_state_refresh, claims_unbound_restate
from verifier.states import NO_BOUND_EVIDENCE_NOTE


def _unbound_claim_read_by_the_old_rule(source) -> Claim:
    claim = make_claim(source, "The harbour wall is 412 metres long.")
    Verdict.objects.create(
        claim=claim,
        judge_model="spanproof-heuristic-v1",
        judge_family="spanproof-heuristic",
        prompt_version=6,
        label="abstained",
        confidence=0.0,
        note=NO_BOUND_EVIDENCE_NOTE,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "no_evidence")
    # what the earlier rule stored for it
    Claim.objects.filter(pk=claim.pk).update(state_reason="abstained")
    return claim


@pytest.mark.django_db
def test_the_restate_reads_an_unbound_claim_as_no_evidence_once():
    source = make_source(make_workspace())
    claim = _unbound_claim_read_by_the_old_rule(source)
    events = StateEvent.objects.filter(claim=claim).count()

    assert claims_unbound_restate() == 1
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "no_evidence")
    assert StateEvent.objects.filter(claim=claim).count() == events + 1
    assert claims_unbound_restate() == 0  # nothing left: nothing written


@pytest.mark.django_db
def test_migrate_runs_it():
    source = make_source(make_workspace())
    claim = _unbound_claim_read_by_the_old_rule(source)
    call_command("migrate", verbosity=0)
    claim.refresh_from_db()
    assert claim.state_reason == "no_evidence"
