"""Sending a claim back to the judge after its source changed binds it again in the
current version first: the judge reads the source as it is now, not "no bound evidence"
against a span of an older text. Whoever sent it back is named in the history."""

from __future__ import annotations

import pytest

from review.services import review_bulk_rejudge, review_rejudge_one
from tests.factories import make_claim
from tests.review.conftest import seen
from verifier.models import EvidenceBinding, StateEvent
from verifier.services.binding import claim_bind
from verifier.services.judging import claims_judge
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

QUOTE = "Sediment settles where the current slows."


def _supported_claim(source, text=QUOTE):
    claim = make_claim(source, text, submitted_quote=QUOTE)
    claim_bind(claim=claim)
    claims_judge(claims=[claim])
    claim.refresh_from_db()
    assert claim.state == "supported", claim.state_reason
    return claim


def _new_version(source, text):
    source_upsert(workspace=source.workspace, ref=source.ref, text=text, title=source.title)


def _active(claim):
    return EvidenceBinding.objects.filter(claim=claim, is_active=True).select_related(
        "source_version"
    )


def test_a_stale_claim_sent_back_is_bound_in_the_current_version_and_judged(source, reviewer):
    claim = _supported_claim(source)
    old = _active(claim).get()
    _new_version(source, "A new first sentence moves every offset. " + source.versions.get().text)
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "stale_source")

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "entailed")
    new = _active(claim).get()
    assert new.source_version.number == 2
    assert new.quote == QUOTE and new.start == old.start + len(
        "A new first sentence moves every offset. "
    )
    assert new.source_hash == new.source_version.sha256
    assert new.bound_by == old.bound_by
    assert claim.verdicts.order_by("-at", "-id").first().binding_id == new.pk
    causes = list(StateEvent.objects.filter(claim=claim).values_list("cause", flat=True))
    assert any(
        "in v2 (re-judge requested by rita)" in cause and cause.startswith("bind:")
        for cause in causes
    ), causes


def test_a_stale_claim_whose_words_are_gone_is_left_unbound_and_says_so(source, reviewer):
    claim = _supported_claim(source)
    _new_version(source, "The Marrow River delta gains land in wet years. Nothing else.")
    claim.refresh_from_db()

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    claim.refresh_from_db()
    assert claim.state == "unverified"
    assert claim.state_reason != "stale_source"
    assert not _active(claim).exists()  # the old text's span is no longer "active"
    assert StateEvent.objects.filter(
        claim=claim, cause__contains="quote not found in v2 (re-judge requested by rita)"
    ).exists()


def test_a_current_span_is_not_bound_again(source, reviewer):
    claim = _supported_claim(source)
    before = _active(claim).get()
    # a later version with the same text keeps the span current (same SHA-256)
    _new_version(source, source.versions.get().text)

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    assert _active(claim).get().pk == before.pk
    assert EvidenceBinding.objects.filter(claim=claim).count() == 1


def test_bulk_send_back_binds_the_stale_ones_too(
    source, reviewer, django_capture_on_commit_callbacks
):
    first = _supported_claim(source)
    second = _supported_claim(source, "Sediment settles where the river current slows.")
    _new_version(source, "Preface. " + source.versions.get().text)

    with django_capture_on_commit_callbacks(execute=True):  # the job's task, run eagerly
        outcome = review_bulk_rejudge(claims=[first, second], reviewer=reviewer)

    assert len(outcome.done) == 2
    for claim in (first, second):
        claim.refresh_from_db()
        assert _active(claim).get().source_version.number == 2
        assert claim.state_reason != "stale_source"


def test_a_claim_whose_quote_was_not_found_is_bound_once_the_source_has_it(source, reviewer):
    quote = "Reed beds filter the run-off before it reaches the sea."
    claim = make_claim(source, quote, submitted_quote=quote)
    claim_bind(claim=claim)
    claim.refresh_from_db()
    assert not _active(claim).exists() and claim.state_reason == "no_evidence"
    _new_version(source, source.versions.get().text + " " + quote)

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    claim.refresh_from_db()
    assert _active(claim).get().source_version.number == 2
    assert (claim.state, claim.state_reason) == ("supported", "entailed")


def _decided_on_a_selected_span(source, reviewer):
    from review.services import review_decide

    claim = make_claim(source, "The delta's sediment settles where the current slows down.")
    claims_judge(claims=[claim])  # nothing bound: no evidence
    text = source.versions.get().text
    start = text.index(QUOTE)
    claim.refresh_from_db()
    review_decide(
        claim=claim,
        reviewer=reviewer,
        decision="supported",
        span=(start, start + len(QUOTE)),
        span_text=QUOTE,
        expected_version=seen(claim),
    )
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "human_supported")
    return claim


def test_a_persons_decision_does_not_carry_over_to_other_words(source, reviewer, tmp_path):
    """A reviewer's "supported" of one span stands for those words only: its words changed
    ("never settles"), the span is not bound to the new ones (a fuzzy match may not add a
    negation) and the decision no longer decides the claim; the audit pack's checker
    agrees."""
    from tests.verifier.audit_pack.conftest import write_pack
    from verifier.audit_pack.check import check_pack, render_report

    claim = _decided_on_a_selected_span(source, reviewer)
    changed = source.versions.get().text.replace(
        QUOTE, "Sediment never settles where the current slows."
    )
    _new_version(source, changed)

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    claim.refresh_from_db()
    assert not _active(claim).exists()
    assert claim.state != "supported" and claim.state_reason != "human_supported"
    report = check_pack(write_pack(source.workspace, tmp_path / "pack.zip"))
    assert report.ok, render_report(report)


def test_a_persons_decision_stands_when_the_same_words_are_bound_again(source, reviewer):
    claim = _decided_on_a_selected_span(source, reviewer)
    _new_version(source, "A new opening sentence. " + source.versions.get().text)

    review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    claim.refresh_from_db()
    assert _active(claim).get().source_version.number == 2
    assert (claim.state, claim.state_reason) == ("supported", "human_supported")
