"""The envelope's ``judge`` is the verdict the claim's state rests on. A reviewer's
decision in force outranks every model verdict recorded after it (re-judging appends the
judge's answer to a decided claim, and the state stays the reviewer's); once the
reviewer takes it back, the model's verdict decides again and is shown. Served the same
by ``GET /connect/v1/claims/{id}``, ``POST /connect/v1/retrieve`` and claims/verify's
row (``claim_result``)."""

from __future__ import annotations

from review.services import review_decide, review_undo
from tests.factories import make_binding, make_claim, make_source, make_user
from tests.review.conftest import seen
from verifier.embeddings import embed_text
from verifier.models import Claim
from verifier.selectors.claim_verification import claim_result
from verifier.selectors.envelopes import claims_for_envelopes
from verifier.services.claim_state import claims_state_refresh
from verifier.services.verdicts import verdict_build, verdicts_append

SPAN = "The Oakum Street ferry carries 12 cars on each crossing of the bay."


def _model_verdict(claim, label: str, confidence: float) -> None:
    binding = claim.bindings.get(is_active=True)
    verdicts_append(
        verdicts=[
            verdict_build(
                claim=claim,
                binding=binding,
                judge_model="spanproof-heuristic-v1",
                judge_family="heuristic",
                prompt_version=1,
                label=label,
                confidence=confidence,
                note="",
            )
        ]
    )
    claims_state_refresh(claims=[claim], causes={claim.pk: "judged"})
    claim.refresh_from_db()


def _retrieved(api, claim) -> dict:
    served = api.post(
        "/connect/v1/retrieve",
        {
            "query": "Oakum Street ferry cars crossing",
            "verification_policy": {"include": ["contradicted", "supported", "unverified"]},
        },
        content_type="application/json",
    )
    assert served.status_code == 200, served.content
    (envelope,) = [
        e for e in served.json()["verified_claims"] if e["claim"]["id"] == claim.public_id
    ]
    return envelope


def test_a_reviewers_decision_outranks_a_later_model_verdict(api, workspace):
    source = make_source(workspace, text=SPAN)
    text = "The Oakum Street ferry carries 12 cars on each crossing."
    claim = make_claim(source, text, published=True, embedding=embed_text(text))
    make_binding(claim, SPAN)
    _model_verdict(claim, "abstained", 0.9)
    reviewer = make_user("rita-inforce", workspace=workspace, role="reviewer")
    review_decide(
        claim=claim, reviewer=reviewer, expected_version=seen(claim), decision="contradicted"
    )
    # re-judged after the decision: the judge now says entailed, the state stays the
    # reviewer's
    _model_verdict(claim, "entailed", 0.95)
    assert (claim.state, claim.state_reason) == ("contradicted", "human_contradicted")

    own = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert own["state"] == "contradicted"
    assert own["judge"]["verdict"] == "contradicted"
    assert own["judge"]["model"] == "human:rita-inforce"
    assert own["judge"]["confidence"] is None and own["judge"]["calibrator"] is None
    assert _retrieved(api, claim)["judge"] == own["judge"]
    row = claim_result(claims_for_envelopes(Claim.objects.filter(pk=claim.pk)).get())
    assert (row["verdict"], row["judge_model"]) == ("contradicted", "human:rita-inforce")

    # The reviewer takes it back: the judge's latest answer decides, and is shown.
    review_undo(claim=claim, reviewer=reviewer)
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("supported", "entailed")
    own = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert (own["judge"]["verdict"], own["judge"]["model"]) == (
        "entailed",
        "spanproof-heuristic-v1",
    )
    assert own["judge"]["confidence"] == 0.95
    assert _retrieved(api, claim)["judge"] == own["judge"]
