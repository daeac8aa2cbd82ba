"""The claim page names no judge model on the abstention recorded where nothing is bound
(no model was asked): its verdict table says "not asked (nothing is bound)", the words
of the review queue's Judge column (``verifier.vocabulary.JUDGE_NOT_ASKED``), and its
timeline says the verifier recorded it; a model's own answer still names the model."""

from __future__ import annotations

import html
import re

import pytest

from tests.audit.conftest import judge
from tests.factories import make_claim
from verifier.vocabulary import JUDGE_NOT_ASKED

pytestmark = pytest.mark.django_db


def _words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_claim_page_says_the_judge_was_not_asked_where_nothing_is_bound(auditor_client, source):
    claim = make_claim(source, "Sediment settles where the current slows.")
    judge(claim, label="abstained", confidence=0.0, note="no_bound_evidence")
    judge(claim, label="entailed", confidence=0.9)
    page = auditor_client.get(f"/audit/claims/{claim.public_id}/").content.decode()
    words = _words(page)
    assert JUDGE_NOT_ASKED in words
    assert "the verifier itself (the judge was not asked, as nothing is bound)" in words
    # the model's own answer is still the model's (the checks' line, the table, the
    # timeline); the not-asked entry names none (it made 5)
    assert words.count("model heuristic-entailment-v1") == 3
