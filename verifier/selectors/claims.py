from __future__ import annotations

from django.db.models import Count, QuerySet
from django.http import Http404

from verifier.models import Claim, ClaimStateChoices, Workspace


def claim_state_counts(*, workspace: Workspace) -> dict[str, int]:
    rows = Claim.objects.filter(workspace=workspace).values("state").annotate(n=Count("id"))
    counts = {state.value: 0 for state in ClaimStateChoices}
    counts.update({row["state"]: row["n"] for row in rows})
    return counts


def claim_list(*, workspace: Workspace) -> QuerySet[Claim]:
    return Claim.objects.filter(workspace=workspace).select_related("source")


def claim_get(*, workspace: Workspace, public_id: str) -> Claim:
    """The claim, or the same 404 for a missing one and another workspace's."""
    claim = claim_list(workspace=workspace).filter(public_id=public_id).first()
    if claim is None:
        raise Http404("No such claim in this workspace.")
    return claim
