"""One vocabulary on the review pages: who made a verdict, the undo's note, the name of
"Send back to the judge", a claim the judge was never asked about, and an excluded
claim's why, keys and flash."""

from __future__ import annotations

import html
import re

import pytest

from review.verdict_words import confidence_in_words, judge_in_words, undo_note_in_words
from tests.factories import make_claim
from tests.review.conftest import seen
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_a_person_is_named_one_way_as_a_judge():
    assert judge_in_words("human:rita", "rita") == "reviewer rita"
    assert judge_in_words("human:rita") == "reviewer rita"
    assert judge_in_words("heuristic-nli") == "heuristic-nli"
    assert judge_in_words(None) == ""


def test_an_undo_note_names_the_decision_not_its_verdict_id():
    note = "undo: withdraws verdict 338 (contradicted)"
    assert undo_note_in_words(note) == "Undo: withdraws an earlier decision (Contradicts)."
    named = undo_note_in_words(note, {338: "rita's decision of 2025-05-02 14:03"}.get)
    assert named == "Undo: withdraws rita's decision of 2025-05-02 14:03 (Contradicts)."
    assert undo_note_in_words("a plain note") == "a plain note"


def test_a_claim_without_a_bound_span_says_the_judge_was_not_asked(reviewer_client, source):
    assert confidence_in_words("abstained", 0.0, note="no_bound_evidence") == (
        "none (the judge was not asked)"
    )
    claim = make_claim(source, "A claim with nothing bound.")
    Verdict.objects.create(
        claim=claim,
        judge_model="heuristic-nli",
        judge_family="heuristic",
        prompt_version=1,
        label="abstained",
        confidence=0.0,
        note="no_bound_evidence",
    )
    claim_state_refresh(claim=claim, cause="test setup")
    for page in ("/review/?state=unverified", f"/review/item/{claim.public_id}/"):
        text = _text(reviewer_client.get(page).content.decode())
        assert "No span was bound, so the judge was not asked." in text
        assert "none (the judge was not asked)" in text
        assert "the judge abstained" not in text


def test_the_item_and_the_queue_name_the_reviewer_and_send_back_one_way(
    reviewer_client, make_queue_claim
):
    claim = make_queue_claim("abstained")
    reviewer_client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "contradicted", "version": seen(claim)},
    )
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    history = _text(re.search(r'<table class="verdicts">.*?</table>', item, re.S).group(0))
    assert "reviewer rita Contradicts" in history and "(human)" not in history
    assert 'id="btn-rejudge">Send back to the judge <kbd>r</kbd>' in item
    assert "Re-judge" not in item
    queue = reviewer_client.get("/review/?state=contradicted").content.decode()
    assert 'data-label="Judge">reviewer rita</td>' in queue and "human:rita" not in queue

    other = make_queue_claim("abstained")
    make_queue_claim("abstained")
    sent = reviewer_client.post(
        f"/review/item/{other.public_id}/rejudge/", {"version": seen(other)}, **HX
    )
    assert f"{other.public_id} sent back to the judge: now Unverified" in _text(
        sent.content.decode()
    )


def test_an_excluded_item_says_why_once_and_why_its_keys_do_nothing(
    reviewer_client, make_queue_claim
):
    claim = make_queue_claim("contradicted")
    make_queue_claim("abstained")
    excluded = reviewer_client.post(
        f"/review/item/{claim.public_id}/exclude/",
        {"reason": "off topic", "version": seen(claim)},
        **HX,
    )
    # the next item's flash offers to restore it
    assert 'id="btn-restore-previous"' in excluded.content.decode()
    body = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    why = _text(re.search(r'<div class="why" id="why-queued">(.*?)</div>', body, re.S).group(1))
    assert why == "Why it is here Why: Excluded by a person."
    assert 'data-blocked="This claim is excluded: Restore it before deciding' in body
    assert 'id="key-status" class="key-status" role="status"' in body
    assert 'id="excluded-note"' in body and 'aria-describedby="excluded-note"' in body
    assert 'id="exclude-dialog"' not in body  # nothing to exclude again
