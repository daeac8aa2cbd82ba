"""An undo takes back the whole decision, the span the reviewer selected with it
included: the binding that was the claim's evidence before the decision (or none) is
active again, and the claim reads the state it had before. Redone decisions and blind
review go through the same path."""

from __future__ import annotations

import pytest
from django.test import Client

from review.services import review_decide, review_undo
from tests.factories import make_binding
from tests.review.conftest import QUOTE, queue_claim, seen
from verifier.models import EvidenceBinding, Verdict
from verifier.services.binding import claims_rebind_superseded
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

MARSH = "Salt marsh grasses trap silt at high tide."
DELTA = "The Marrow River delta gains land in wet years."


def _span(claim, quote: str) -> tuple[int, int]:
    start = claim.source.versions.order_by("-number").first().text.index(quote)
    return start, start + len(quote)


def _decide(claim, reviewer, decision: str, quote: str | None = None):
    return review_decide(
        claim=claim,
        reviewer=reviewer,
        decision=decision,
        span=_span(claim, quote) if quote else None,
        span_text=quote,
        expected_version=seen(claim),
    )


def _active(claim) -> EvidenceBinding | None:
    return EvidenceBinding.objects.filter(claim=claim, is_active=True).first()


def _state(claim) -> tuple[str, str]:
    claim.refresh_from_db()
    return claim.state, claim.state_reason


def test_undo_of_a_span_decision_on_an_unbound_claim_unbinds_it(source, reviewer):
    claim = queue_claim(source, "no_evidence")
    before = _state(claim)
    assert before == ("unverified", "no_evidence")
    _decide(claim, reviewer, "contradicted", DELTA)
    assert _state(claim) == ("contradicted", "human_contradicted")
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim) is None
    assert _state(claim) == before
    # Nothing is deleted: the reviewer's span stays in the history, inactive.
    assert claim.bindings.filter(bound_by="reviewer", is_active=False).count() == 1


def test_undo_of_a_better_span_makes_the_earlier_span_active_again(source, reviewer):
    claim = queue_claim(source, "contradicted")  # the judge's verdict on QUOTE
    earlier = _active(claim)
    before = _state(claim)
    _decide(claim, reviewer, "supported", MARSH)
    assert _active(claim).quote == MARSH
    assert _state(claim) == ("supported", "human_supported")
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim).pk == earlier.pk
    assert _state(claim) == before


def test_each_undo_of_two_span_decisions_steps_back_one_span(source, reviewer):
    claim = queue_claim(source, "no_evidence")
    before = _state(claim)
    _decide(claim, reviewer, "contradicted", DELTA)
    first = _active(claim)
    _decide(claim, reviewer, "supported", MARSH)
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim).pk == first.pk
    assert _state(claim) == ("contradicted", "human_contradicted")
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim) is None
    assert _state(claim) == before


def test_undo_of_a_decision_without_a_span_keeps_the_span(source, reviewer):
    claim = queue_claim(source, "contradicted")
    bound = _active(claim)
    _decide(claim, reviewer, "supported")
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim).pk == bound.pk
    assert _state(claim) == ("contradicted", "contradicted")


def test_undo_then_decide_again_on_the_restored_evidence(source, reviewer):
    claim = queue_claim(source, "contradicted")
    earlier = _active(claim)
    _decide(claim, reviewer, "supported", MARSH)
    review_undo(claim=claim, reviewer=reviewer)
    # Decided again without a span: on the span the undo restored.
    _decide(claim, reviewer, "supported")
    assert _active(claim).pk == earlier.pk
    assert Verdict.objects.filter(claim=claim).latest_first().first().binding_id == earlier.pk
    assert _state(claim) == ("supported", "human_supported")
    # Decided again on a span, then undone again: back to the restored evidence.
    review_undo(claim=claim, reviewer=reviewer)
    _decide(claim, reviewer, "contradicted", DELTA)
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim).pk == earlier.pk
    assert _state(claim) == ("contradicted", "contradicted")


def test_undo_after_another_reviewers_undo_restores_the_first_evidence(source, workspace):
    from tests.factories import make_user

    rita = make_user("rita2", workspace=workspace, role="reviewer")
    remy = make_user("remy", workspace=workspace, role="reviewer")
    claim = queue_claim(source, "no_evidence")
    _decide(claim, rita, "contradicted", DELTA)
    _decide(claim, remy, "supported", MARSH)
    review_undo(claim=claim, reviewer=remy)
    assert _active(claim).quote == DELTA
    review_undo(claim=claim, reviewer=rita)
    assert _active(claim) is None
    assert _state(claim) == ("unverified", "no_evidence")


def test_undo_after_the_claim_was_bound_again_keeps_the_later_binding(source, reviewer):
    claim = queue_claim(source, "no_evidence")
    _decide(claim, reviewer, "contradicted", DELTA)
    text = claim.source.versions.get().text
    version = source_upsert(workspace=source.workspace, ref=source.ref, text=text + " More.")
    claims_rebind_superseded(claims=[claim], actor=None, why="test: new version")
    rebound = _active(claim)
    assert rebound.source_version_id == version.version.pk
    review_undo(claim=claim, reviewer=reviewer)
    # The selection is not the claim's evidence any more: the later binding stands.
    assert _active(claim).pk == rebound.pk


def test_undo_in_blind_review_takes_back_the_selected_span(source, reviewer):
    client = Client()
    client.force_login(reviewer)
    claim = queue_claim(source, "no_evidence")
    before = _state(claim)
    assert client.post("/review/blind/", {"next": "/review/"}).status_code == 302
    start, end = _span(claim, DELTA)
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {
            "decision": "contradicted",
            "span_start": start,
            "span_end": end,
            "span_text": DELTA,
            "version": seen(claim),
        },
    )
    assert response.status_code == 302
    assert _active(claim).quote == DELTA
    assert client.post(f"/review/item/{claim.public_id}/undo/").status_code == 302
    assert _active(claim) is None
    assert _state(claim) == before


def test_a_reviewers_binding_bound_outside_the_decision_is_kept(source, reviewer):
    # A span bound by a reviewer earlier (not with the decision being undone) stays.
    claim = queue_claim(source, "no_evidence")
    bound = make_binding(claim, QUOTE, bound_by="reviewer", bound_by_user=reviewer)
    _decide(claim, reviewer, "supported")
    review_undo(claim=claim, reviewer=reviewer)
    assert _active(claim).pk == bound.pk
