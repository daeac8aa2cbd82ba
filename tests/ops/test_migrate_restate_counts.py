"""``migrate`` on a database an earlier release filled (docs/operations.md, "Upgrading").

After its migrations, every ``migrate`` (and so every ``make run``) re-resolves the
claims with nothing bound whose stored reason is ``abstained`` (``claims_unbound_restate``:
the earlier rule read the local "nothing to judge" abstention as the judge's answer).
A RAG audit's unsupported sentence is such a claim too, but its abstention is the
judge's own (over the answer's chunks): it stays ``abstained``, and ``migrate`` must not
say it re-resolved it. It used to print ``Re-resolved N claims with no span bound
(no_evidence)`` for those on every start, upgraded database or not, though none changed.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Claim, Source, StateEvent, Verdict
from verifier.services.claim_state import claim_state_refresh, claims_unbound_restate
from verifier.states import NO_BOUND_EVIDENCE_NOTE


def _unbound_claim(source: Source, *, note: str, confidence: float, stored_reason: str) -> Claim:
    claim = make_claim(source, "The harbour wall is made of gold.")
    Verdict.objects.create(
        claim=claim,
        judge_model="spanproof-heuristic-v1",
        judge_family="spanproof-heuristic",
        prompt_version=6,
        label="abstained",
        confidence=confidence,
        note=note,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    # what the earlier release stored for it
    Claim.objects.filter(pk=claim.pk).update(state_reason=stored_reason)
    claim.refresh_from_db()
    return claim


def _rag_unsupported_claim(source: Source) -> Claim:
    """An unsupported sentence of a RAG audit, as the audit stores it (no span bound,
    the judge's abstention over the chunks)."""
    claim = _unbound_claim(
        source,
        note="rag audit: unsupported; no chunk backs it",
        confidence=0.31,
        stored_reason="abstained",
    )
    assert (claim.state, claim.state_reason) == ("unverified", "abstained")
    return claim


@pytest.mark.django_db
def test_the_restate_counts_only_the_claims_it_changed() -> None:
    source = make_source(make_workspace())
    rag = _rag_unsupported_claim(source)
    old_rule = _unbound_claim(
        source, note=NO_BOUND_EVIDENCE_NOTE, confidence=0.0, stored_reason="abstained"
    )
    rag_events = StateEvent.objects.filter(claim=rag).count()

    assert claims_unbound_restate() == 1  # the old rule's claim, not the RAG one

    old_rule.refresh_from_db()
    rag.refresh_from_db()
    assert old_rule.state_reason == "no_evidence"
    assert rag.state_reason == "abstained"
    assert StateEvent.objects.filter(claim=rag).count() == rag_events
    assert claims_unbound_restate() == 0


@pytest.mark.django_db
def test_migrate_says_nothing_of_claims_it_left_as_they_were() -> None:
    _rag_unsupported_claim(make_source(make_workspace()))
    out = StringIO()

    call_command("migrate", stdout=out)

    assert "Re-resolved" not in out.getvalue()
