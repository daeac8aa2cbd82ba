from __future__ import annotations

import pytest

from tests.factories import make_binding, make_claim
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh

QUOTE = "Sediment settles where the current slows."


def judge(claim, label="entailed", confidence=0.9, binding=None, reviewer=None, note=""):
    verdict = Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="person" if reviewer else "heuristic-entailment-v1",
        judge_family="human" if reviewer else "heuristic",
        prompt_version=1,
        label=label,
        confidence=confidence,
        reviewer=reviewer,
        note=note,
    )
    claim_state_refresh(claim=claim, cause="test verdict", actor=reviewer)
    claim.refresh_from_db()
    return verdict


@pytest.fixture
def supported_claim(source):
    claim = make_claim(source, QUOTE)
    binding = make_binding(claim, QUOTE)
    judge(claim, binding=binding)
    assert claim.state == "supported"
    return claim
