"""The whole Layer-1 + Layer-2 chain for a set of claims: bind, judge, state."""

from __future__ import annotations

from collections.abc import Sequence

from verifier.engine import get_judge
from verifier.judges import Judge
from verifier.models import Claim
from verifier.services.binding import claim_bind
from verifier.services.judging import claims_judge


def claims_verify(*, claims: Sequence[Claim], judge: Judge | None = None) -> None:
    """Bind each claim in its cited source (its submitted quote, else evidence search),
    judge them all in batches, and refresh every state (the judge step refreshes)."""
    claims = list(claims)
    if not claims:
        return
    judge = judge or get_judge()
    for claim in claims:
        claim_bind(claim=claim, quote=claim.submitted_quote or None)
    claims_judge(claims=claims, judge=judge, cause="verified")
