from __future__ import annotations

import pytest

from tests.factories import make_claim
from tests.verifier.services.conftest import ScriptedJudge
from verifier.judges.heuristic import HeuristicJudge
from verifier.models import StateEvent, Verdict
from verifier.services.remediation import EXCLUSION_REASON, claim_remediate
from verifier.services.verification import claims_verify

pytestmark = pytest.mark.django_db


def test_overclaim_is_narrowed_rebound_and_rejudged(coral):
    text = "Norway permanently closed all of its reef areas to trawling in 1999."
    claim = make_claim(coral, text)
    judge = HeuristicJudge()
    claims_verify(claims=[claim], judge=judge)
    claim.refresh_from_db()
    assert claim.state != "supported"
    verdicts_before = Verdict.objects.filter(claim=claim).count()

    outcome = claim_remediate(claim=claim, judge=judge)
    claim.refresh_from_db()
    assert outcome.repaired_text == "Norway closed several reef areas to trawling in 1999."
    assert claim.text == outcome.repaired_text
    assert claim.original_text == text
    assert claim.state == "supported" and not outcome.excluded
    binding = claim.bindings.get(is_active=True)
    assert binding.bound_by == "remediation"
    assert Verdict.objects.filter(claim=claim).count() == verdicts_before + 1
    causes = list(StateEvent.objects.filter(claim=claim).values_list("cause", flat=True))
    assert any("narrowed" in c for c in causes)


def test_still_unsupported_after_repair_is_soft_excluded(coral):
    claim = make_claim(coral, "Norway closed several reef areas to trawling in 1999.")
    claims_verify(claims=[claim], judge=ScriptedJudge("abstained", 0.5))
    outcome = claim_remediate(claim=claim, judge=ScriptedJudge("abstained", 0.5))
    claim.refresh_from_db()
    assert outcome.excluded and claim.state == "excluded"
    assert claim.exclusion_reason == EXCLUSION_REASON


def test_nothing_to_narrow_to_is_excluded_without_promotion(coral):
    claim = make_claim(coral, "Quarterly bond yields in Brazilian municipal finance rose.")
    claims_verify(claims=[claim], judge=ScriptedJudge("entailed", 1.0))
    outcome = claim_remediate(claim=claim, judge=ScriptedJudge("entailed", 1.0))
    claim.refresh_from_db()
    assert outcome.repaired_text is None and claim.state == "excluded"


def test_contradicted_claims_are_left_for_review(coral):
    claim = make_claim(coral, "Norway closed several reef areas to trawling in 1999.")
    claims_verify(claims=[claim], judge=ScriptedJudge("contradicted", 0.9))
    outcome = claim_remediate(claim=claim, judge=ScriptedJudge("entailed", 1.0))
    claim.refresh_from_db()
    assert not outcome.attempted and claim.state == "contradicted"
