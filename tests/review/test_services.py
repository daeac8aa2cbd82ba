from __future__ import annotations

import pytest

from review.models import ReviewNote
from review.services import (
    LeasedToOther,
    ReviewError,
    VersionMissing,
    review_decide,
    review_exclude,
    review_lease_claim,
    review_note,
    review_rejudge_one,
    review_restore,
)
from tests.factories import make_claim, make_source, make_user
from tests.review.conftest import QUOTE, seen
from verifier.models import StateEvent, Verdict


def _history(claim):
    return list(claim.verdicts.order_by("at", "id")), list(
        StateEvent.objects.filter(claim=claim).order_by("at", "id")
    )


def test_supported_with_a_fresh_bound_span(make_queue_claim, reviewer):
    claim = make_queue_claim("abstained")
    result = review_decide(
        claim=claim,
        reviewer=reviewer,
        expected_version=seen(claim),
        decision="supported",
        note="checked",
    )
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "human_supported")
    assert result.state == "supported"
    verdicts, events = _history(claim)
    human = verdicts[-1]
    assert human.reviewer == reviewer
    assert human.judge_model == "human:rita"
    assert human.judge_family == "human"
    assert (human.label, human.confidence, human.note) == ("entailed", 1.0, "checked")
    assert human.binding == claim.bindings.get(is_active=True)
    assert events[-1].actor == reviewer
    assert events[-1].to_state == "supported"


def test_supported_without_a_bound_span_is_refused_and_appends_nothing(make_queue_claim, reviewer):
    claim = make_queue_claim("no_evidence")
    before = Verdict.objects.filter(claim=claim).count()
    with pytest.raises(ReviewError, match="bound span"):
        review_decide(
            claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="supported"
        )
    claim.refresh_from_db()
    assert claim.state == "unverified"
    assert Verdict.objects.filter(claim=claim).count() == before


def test_supported_with_a_stale_span_is_refused(make_queue_claim, reviewer):
    claim = make_queue_claim("stale_source")
    with pytest.raises(ReviewError):
        review_decide(
            claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="supported"
        )
    assert claim.verdicts.filter(reviewer__isnull=False).count() == 0


def test_contradicted(make_queue_claim, reviewer):
    claim = make_queue_claim("low_confidence")
    review_decide(
        claim=claim,
        reviewer=reviewer,
        expected_version=seen(claim),
        decision="contradicted",
        note="wrong",
    )
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("contradicted", "human_contradicted")
    assert claim.verdicts.first().label == "contradicted"


def test_contradicted_needs_a_span(make_queue_claim, reviewer):
    claim = make_queue_claim("no_evidence")
    with pytest.raises(ReviewError, match="span"):
        review_decide(
            claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="contradicted"
        )


def test_selected_span_must_match_the_source(make_queue_claim, reviewer):
    claim = make_queue_claim("no_evidence")
    text = claim.source.versions.get().text
    start = text.index(QUOTE)
    with pytest.raises(ReviewError, match="does not match"):
        review_decide(
            claim=claim,
            reviewer=reviewer,
            expected_version=seen(claim),
            decision="supported",
            span=(start, start + len(QUOTE)),
            span_text="something else",
        )
    with pytest.raises(ReviewError, match="outside"):
        review_decide(
            claim=claim,
            reviewer=reviewer,
            expected_version=seen(claim),
            decision="supported",
            span=(0, 10_000),
        )
    assert claim.bindings.count() == 0


def test_selected_span_binds_exactly_and_supports(workspace, reviewer):
    text = "Caf\u00e9 na\u0303o 😀 — the delta 👩\u200d👩\u200d👧 grows in wet years. End."
    source = make_source(workspace, text=text)
    claim = make_claim(source, "The delta grows in wet years.")
    quote = "the delta 👩\u200d👩\u200d👧 grows in wet years"
    start = text.index(quote)
    review_decide(
        claim=claim,
        reviewer=reviewer,
        expected_version=seen(claim),
        decision="supported",
        span=(start, start + len(quote)),
        span_text=quote,
    )
    claim.refresh_from_db()
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end, binding.match) == (start, start + len(quote), "exact")
    assert binding.quote == quote == text[binding.start : binding.end]
    assert binding.bound_by == "reviewer"
    assert claim.state == "supported"


def test_exclude_and_restore_are_recorded(make_queue_claim, reviewer):
    claim = make_queue_claim("abstained")
    review_exclude(
        claim=claim,
        reviewer=reviewer,
        expected_version=seen(claim),
        reason="duplicate of another claim",
    )
    claim.refresh_from_db()
    assert (claim.state, claim.exclusion_reason) == ("excluded", "duplicate of another claim")
    with pytest.raises(ReviewError):
        review_decide(
            claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="supported"
        )
    review_restore(claim=claim, reviewer=reviewer, expected_version=seen(claim))
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "abstained")
    _, events = _history(claim)
    assert [e.to_state for e in events[-2:]] == ["excluded", "unverified"]
    assert all(e.actor == reviewer for e in events[-2:])
    with pytest.raises(ReviewError):
        review_exclude(claim=claim, reviewer=reviewer, expected_version=seen(claim), reason="  ")


def test_note_is_appended_and_immutable(make_queue_claim, reviewer):
    from django.db import IntegrityError, transaction

    claim = make_queue_claim("abstained")
    note = review_note(claim=claim, reviewer=reviewer, text="Ask the hydrology team.")
    assert ReviewNote.objects.get(claim=claim).text == "Ask the hydrology team."
    claim.refresh_from_db()
    assert claim.state == "unverified"  # a note is not a decision
    with pytest.raises(IntegrityError), transaction.atomic():
        ReviewNote.objects.filter(pk=note.pk).update(text="changed")
    with pytest.raises(ReviewError):
        review_note(claim=claim, reviewer=reviewer, text=" ")


@pytest.mark.parametrize(
    "act",
    [
        lambda claim, who: review_decide(
            claim=claim, reviewer=who, expected_version=seen(claim), decision="supported"
        ),
        lambda claim, who: review_exclude(
            claim=claim, reviewer=who, expected_version=seen(claim), reason="off-topic"
        ),
        lambda claim, who: review_rejudge_one(
            claim=claim, reviewer=who, expected_version=seen(claim)
        ),
    ],
    ids=["decide", "exclude", "rejudge"],
)
def test_the_services_refuse_a_claim_leased_to_another_reviewer(
    make_queue_claim, reviewer, django_user_model, act
):
    """The lease is enforced under the row lock, not only by the console views."""
    claim = make_queue_claim("abstained")
    otto = make_user("otto", workspace=claim.workspace, role="reviewer")  # may hold a lease
    review_lease_claim(claim=claim, reviewer=otto, served_reason="t")
    before = _history(claim)
    with pytest.raises(LeasedToOther, match="otto is reviewing this claim right now"):
        act(claim, reviewer)
    assert _history(claim) == before
    # the lease holder may act
    review_decide(claim=claim, reviewer=otto, expected_version=seen(claim), decision="supported")
    claim.refresh_from_db()
    assert claim.state == "supported"


@pytest.mark.parametrize(
    "act",
    [
        lambda claim, who, v: review_decide(
            claim=claim, reviewer=who, expected_version=v, decision="contradicted"
        ),
        lambda claim, who, v: review_exclude(
            claim=claim, reviewer=who, expected_version=v, reason="off-topic"
        ),
        lambda claim, who, v: review_rejudge_one(claim=claim, reviewer=who, expected_version=v),
    ],
    ids=["decide", "exclude", "rejudge"],
)
@pytest.mark.parametrize("version", [None, "", "abc", "v1.e2; drop"])
def test_an_action_without_the_items_version_is_refused(make_queue_claim, reviewer, act, version):
    """A reviewer whose page never showed the current state (read-only, another held the
    lease) must not land a decision on it: no version, no write."""
    claim = make_queue_claim("abstained")
    before = _history(claim), claim.state
    with pytest.raises(VersionMissing) as refused:
        act(claim, reviewer, version)
    assert refused.value.code == "version_required"
    claim.refresh_from_db()
    assert (_history(claim), claim.state) == before


def test_a_reviewers_decision_has_no_confidence_in_any_output(make_queue_claim, reviewer):
    """The console shows none for a person's decision; the envelope (API, exports) and
    claims/verify's results say null too, not the stored 1.0 (states walk, L8)."""
    from audit.exports import envelope_of
    from verifier.selectors.claim_verification import claim_result

    claim = make_queue_claim("abstained")
    review_decide(
        claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="supported"
    )
    claim.refresh_from_db()
    judge = envelope_of(claim)["judge"]
    assert judge["model"] == "human:rita" and judge["verdict"] == "entailed"
    assert judge["confidence"] is None
    assert claim_result(claim)["confidence"] is None
