"""The queue and the item say in words why the judge did not decide."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.utils import timezone

from tests.factories import make_binding, make_claim
from tests.review.conftest import QUOTE
from tests.verifier.api.conftest import client_for
from verifier.models import Claim, Verdict
from verifier.rag.decompose import decompose, is_answer_framing
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _abstained(source, note: str, confidence: float = 1.0):
    claim = make_claim(source, "The delta grows twelve metres a year.")
    binding = make_binding(claim, QUOTE)
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-nli",
        judge_family="heuristic",
        prompt_version=1,
        label="abstained",
        confidence=confidence,
        note=note,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    return claim


def test_queue_row_gives_the_decisive_reason_and_no_confidence_for_an_abstention(
    reviewer_client, source
):
    _abstained(source, "low_coverage: 0.40 (missing: grows, twelve) (span 1)")
    text = _text(reviewer_client.get("/review/").content.decode())
    assert "The judge could not decide whether the span supports the claim." in text
    assert "The span covers too few of the claim's words (0.40 (missing: grows, twelve))." in text
    assert "no answer (the judge abstained)" in text
    assert "1.00" not in text
    assert "{#" not in text  # no template comment leaks into the page


def test_item_says_why_and_never_repeats_the_state(reviewer_client, make_queue_claim, source):
    claim = _abstained(source, "number_mismatch: 12 vs 14 (span 1)")
    text = _text(reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode())
    assert "Why: The judge could not decide" in text
    assert "The numbers differ: 12 vs 14." in text
    assert "Judge's confidence: no answer (the judge abstained)" in text
    assert "1.00" not in text
    contradicted = make_queue_claim("contradicted")
    text = _text(reviewer_client.get(f"/review/item/{contradicted.public_id}/").content.decode())
    assert "contradicted contradicted" not in text
    assert "90 % sure the span contradicts the claim" in text  # "90\u00a0%", split


def test_answer_framing_is_not_a_claim():
    assert is_answer_framing("Here's a concise summary of the passage:")
    assert is_answer_framing("I hope this helps!")
    assert not is_answer_framing("Here the river widens into a delta.")
    answer = "Here's a concise summary of the passage: HNSW is fast [c1]. I hope this helps!"
    assert [s.whole.text for s in decompose(answer)] == ["HNSW is fast"]


def test_rag_audit_framing_never_reaches_the_queue(workspace, reviewer_client):
    c1 = "HNSW builds a hierarchical proximity graph; recall ~99% with low latency."
    chunks = json.dumps({"id": "c1", "text": c1}) + "\n"
    answer = "Here's a concise summary of the passage:\nHNSW has ~99% recall [c1]. Sure!"
    response = client_for(workspace).post(
        "/connect/v1/rag/audit",
        data=json.dumps({"answer": answer, "chunks": chunks}),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    texts = list(Claim.objects.filter(workspace=workspace).values_list("text", flat=True))
    assert texts and not any("summary" in t or t.startswith("Sure") for t in texts)
    assert "concise summary" not in reviewer_client.get("/review/").content.decode()


def _why(page: str) -> str:
    block = re.search(r'<div class="why" id="why-queued">(.*?)</div>', page, re.S)
    assert block, "the item says why it is here"
    return _text(block.group(1))


def test_after_an_undo_the_item_and_the_queue_say_what_decides_the_state_now(
    reviewer_client, make_queue_claim
):
    """The judge contradicted (90 %); a reviewer marks it supported, then undoes that. The
    judge's verdict decides again: the why and the confidence are the judge's, not the
    withdrawal's ("decided by a person"), and the undo's note names the withdrawn answer
    as people read it ("Supports"), not by its code."""
    from tests.review.conftest import seen

    claim = make_queue_claim("contradicted")
    decided = reviewer_client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "supported", "version": seen(claim)},
    )
    assert decided.status_code == 302
    page = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert "Judge's confidence: decided by a person" in _why(page)  # the person's, for now

    undone = reviewer_client.post(f"/review/item/{claim.public_id}/undo/", follow=True)
    assert undone.redirect_chain == [(f"/review/item/{claim.public_id}/", 302)]
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("contradicted", "contradicted")
    withdrawn = claim.verdicts.get(label="withdrawn")
    decision = claim.verdicts.get(label="entailed")
    for page in (
        undone.content.decode(),
        reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode(),
    ):
        why = _why(page)
        assert why == (
            "Why it is here Why: The judge found that the cited span contradicts the claim. "
            "Judge's confidence: 90 % sure the span contradicts the claim"
        )
        text = _text(page)
        # The withdrawn decision in words (its row in the history), not by its verdict id.
        when = timezone.localtime(decision.at).strftime("%Y-%m-%d %H:%M UTC")
        assert f"Undo: withdraws rita's decision of {when} (Supports)." in text
        assert f"verdict {decision.pk}" not in text
        assert "(entailed)" not in text and withdrawn.note.endswith("(entailed)")

    # The audit's claim page words the undo as the item does (verdicts table, timeline).
    audit_page = _text(reviewer_client.get(f"/audit/claims/{claim.public_id}/").content.decode())
    assert audit_page.count(f"Undo: withdraws rita's decision of {when} (Supports).") == 2
    assert f"verdict {decision.pk}" not in audit_page

    queue = _text(reviewer_client.get("/review/").content.decode())
    assert "90 % sure the span contradicts the claim" in queue
    assert "decided by a person" not in queue and "withdraws verdict" not in queue.lower()
