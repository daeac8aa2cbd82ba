"""The review item's verdict history names no judge model on the abstention recorded
where nothing is bound (the judge was never asked): it says so in the words the queue's
Judge column uses (``review.verdict_words.JUDGE_NOT_ASKED``); a model's own answer still
names the model."""

from __future__ import annotations

import html
import re

import pytest

from review.verdict_words import JUDGE_NOT_ASKED
from tests.review.conftest import queue_claim
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db


def _judge_cells(page: str) -> list[str]:
    table = re.search(r'<table class="verdicts">.*?</table>', page, re.S)
    assert table is not None
    rows = re.findall(r"<tr><td>(.*?)</td>", table.group(0), re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", r)).split()) for r in rows]


def test_the_history_says_the_judge_was_not_asked_where_nothing_is_bound(reviewer_client, source):
    claim = queue_claim(source, "contradicted", judge_model="heuristic-nli")
    # the span went away: the verifier's own abstention, no model asked
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
    page = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    assert JUDGE_NOT_ASKED == "not asked (nothing is bound)"
    assert _judge_cells(page) == [JUDGE_NOT_ASKED, "heuristic-nli"]
