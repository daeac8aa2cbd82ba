"""/retrieve serves a claim the judge was never asked about (nothing bound: the locally
recorded ``no_bound_evidence`` abstention) with no ``judge``, as the claim's own envelope
(``GET /connect/v1/claims/{id}``) does (``verifier.states.judge_not_asked``)."""

from __future__ import annotations

from tests.factories import make_claim
from verifier.embeddings import embed_text
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh
from verifier.states import NO_BOUND_EVIDENCE_NOTE


def _never_judged(source, text: str):
    """A published claim with nothing bound and the abstention recorded locally for it
    (what ingest stores when evidence search finds no passage)."""
    claim = make_claim(source, text, published=True, embedding=embed_text(text))
    Verdict.objects.create(
        claim=claim,
        binding=None,
        judge_model="heuristic-entailment-v1",
        judge_family="heuristic",
        prompt_version=1,
        label="abstained",
        confidence=0.0,
        note=NO_BOUND_EVIDENCE_NOTE,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    return claim


def test_retrieve_shows_no_judge_for_a_claim_never_judged(api, delta):
    claim = _never_judged(delta, "Sediment settles where the current slows.")
    assert claim.state == "unverified"
    own = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert "judge" not in own

    served = api.post(
        "/connect/v1/retrieve",
        {"query": "sediment settles", "verification_policy": {"include": ["unverified"]}},
        content_type="application/json",
    )
    assert served.status_code == 200, served.content
    (envelope,) = served.json()["verified_claims"]
    assert envelope["claim"]["id"] == claim.public_id
    assert "judge" not in envelope
    assert envelope["trust_score"] == own["trust_score"]
