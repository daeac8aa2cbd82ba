"""A reviewer's third decision, "Not stated by the source": the source says neither the
claim nor its opposite. It is not a contradiction: the claim is unverified with the
reason ``human_not_stated``, out of the default queue as decided, undoable, named in
words in the history, and left out of what the reviewer calibrators learn."""

from __future__ import annotations

import re

import pytest

from review.selectors.home import review_progress
from review.services import review_decide, review_undo
from tests.review.conftest import QUOTE, seen
from verifier import vocabulary
from verifier.models import StateEvent, Verdict
from verifier.selectors.calibrators import (
    calibrator_decided_claims,
    calibrator_decisions_through,
)
from verifier.states import (
    DEFAULT_POLICY,
    ClaimState,
    StateDecision,
    StateInputs,
    StateReason,
    VerdictInput,
    resolve_state,
)

pytestmark = pytest.mark.django_db

NOT_STATED = VerdictInput("not_stated", 1.0)


@pytest.mark.parametrize(
    ("binding", "match", "legacy", "expected"),
    [
        ("fresh", "exact", False, (ClaimState.UNVERIFIED, StateReason.HUMAN_NOT_STATED)),
        ("fresh", "fuzzy", True, (ClaimState.UNVERIFIED, StateReason.HUMAN_NOT_STATED)),
        ("none", None, False, (ClaimState.UNVERIFIED, StateReason.HUMAN_NOT_STATED)),
        ("none", None, True, (ClaimState.UNVERIFIED, StateReason.HUMAN_NOT_STATED)),
        # the source changed since the reviewer read it: back in the queue
        ("stale", "exact", False, (ClaimState.UNVERIFIED, StateReason.STALE_SOURCE)),
    ],
)
def test_not_stated_is_unverified_never_supported_nor_contradicted(
    binding, match, legacy, expected
):
    judge_said = VerdictInput("entailed", 0.95)  # a reviewer outranks the judge
    inputs = StateInputs(binding, match, judge_said, NOT_STATED, False, legacy)
    assert resolve_state(inputs, DEFAULT_POLICY) == StateDecision(*expected)
    excluded = StateInputs(binding, match, judge_said, NOT_STATED, True, legacy)
    assert resolve_state(excluded).reason is StateReason.EXCLUDED


def test_the_reason_and_the_verdict_have_words():
    assert vocabulary.label("reason", "human_not_stated") == "Not stated by the source (reviewer)"
    assert "does not state" in vocabulary.explanation("reason", "human_not_stated")
    assert vocabulary.label("verdict", "not_stated") == "Not stated"


def test_not_stated_on_an_unrelated_span_leaves_the_queue(
    reviewer_client, reviewer, make_queue_claim
):
    claim = make_queue_claim("abstained", text="The reef is home to dolphins.")
    other = make_queue_claim("abstained")
    response = reviewer_client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "not_stated", "version": seen(claim), "note": "corals only"},
        follow=True,
    )
    assert response.status_code == 200
    assert "marked not stated by the source: now Unverified (Not stated by the source" in (
        response.content.decode()
    )
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "human_not_stated")
    human = claim.verdicts.get(reviewer=reviewer)
    assert (human.label, human.confidence, human.note) == ("not_stated", 1.0, "corals only")
    assert human.binding == claim.bindings.get(is_active=True)  # the span found silent
    event = StateEvent.objects.filter(claim=claim).order_by("-id").first()
    assert event.cause == "review: not stated by rita"
    # Out of the default queue (decided), found under its state.
    queue = reviewer_client.get("/review/").content.decode()
    assert claim.public_id not in queue and other.public_id in queue
    assert claim.public_id in reviewer_client.get("/review/?state=unverified").content.decode()
    # The item's history says it in words; Undo offers to take it back.
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert ">Not stated<" in item
    assert "Undo my decision (not stated)" in item
    assert "Not stated by the source (reviewer)" in item
    # It counts as a decision of the day.
    assert review_progress(workspace=claim.workspace, reviewer=reviewer).today == 1


def test_not_stated_needs_no_span_and_binds_none(make_queue_claim, reviewer):
    claim = make_queue_claim("no_evidence")
    text = claim.source.versions.get().text
    start = text.index(QUOTE)
    review_decide(
        claim=claim,
        reviewer=reviewer,
        decision="not_stated",
        span=(start, start + len(QUOTE)),  # a selection left over is not evidence
        span_text=QUOTE,
        expected_version=seen(claim),
    )
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "human_not_stated")
    assert not claim.bindings.exists()
    assert claim.verdicts.get(reviewer=reviewer).binding is None


def test_not_stated_is_undone_like_the_others(make_queue_claim, reviewer):
    claim = make_queue_claim("abstained")
    review_decide(
        claim=claim, reviewer=reviewer, decision="not_stated", expected_version=seen(claim)
    )
    review_undo(claim=claim, reviewer=reviewer)
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "abstained")
    labels = list(claim.verdicts.filter(reviewer=reviewer).order_by("id").values_list("label"))
    assert labels == [("not_stated",), ("withdrawn",)]


def test_the_calibrators_leave_not_stated_out(make_queue_claim, reviewer, workspace):
    """A calibrator's other side answers "contradicted": a span the reviewer found silent
    is no contradiction, so it is not learnt as one."""
    said = make_queue_claim("abstained", text="Said.")
    silent = make_queue_claim("abstained", text="Not said.")
    review_decide(claim=said, reviewer=reviewer, decision="supported", expected_version=seen(said))
    review_decide(
        claim=silent, reviewer=reviewer, decision="not_stated", expected_version=seen(silent)
    )
    decided = {
        claim.pk: supported for claim, supported in calibrator_decided_claims(workspace=workspace)
    }
    assert decided == {said.pk: True}
    latest = Verdict.objects.filter(claim=said, reviewer=reviewer).get()
    assert calibrator_decisions_through(workspace=workspace) == latest.pk


def test_the_item_offers_not_stated_with_its_key(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    button = re.search(r'<button[^>]*id="btn-not-stated"[^>]*>(.*?)</button>', item, re.S)
    assert button and 'value="not_stated"' in button.group(0)
    words = re.sub(r"<[^>]+>", "", button.group(1))
    assert words == "Not stated by the source d" and "<kbd>d</kbd>" in button.group(1)
    assert "<kbd>d</kbd></dt><dd>Not stated by the source" in (
        reviewer_client.get("/review/").content.decode() + item
    )
