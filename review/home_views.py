"""The console's home page: each role's next actions with their counts, the claims by
state and every entry point by group. (Here rather than in ``verifier``: the next
actions read the review queue, and the engine never imports the consoles.)"""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from review.selectors.home import review_home_actions, review_progress
from verifier.http import SignedInRequest
from verifier.permissions import DECIDER_ROLES, signed_in_required
from verifier.selectors.claims import claim_state_counts
from verifier.selectors.workspaces import membership_list


@signed_in_required
@require_GET
def home(request: SignedInRequest) -> HttpResponse:
    workspace = request.workspace
    membership = getattr(request, "membership", None)
    role = membership.role if membership else None
    context: dict[str, object] = {"memberships": membership_list(user=request.user)}
    if workspace is not None and role is not None:
        state_counts = claim_state_counts(workspace=workspace)
        context["state_counts"] = state_counts
        # A new workspace: its next actions are all zero, so say where to start instead.
        context["workspace_is_empty"] = not any(state_counts.values())
        context["next_actions"] = review_home_actions(
            workspace=workspace, user=request.user, role=role
        )
        if role in DECIDER_ROLES:
            context["progress"] = review_progress(workspace=workspace, reviewer=request.user)
    return render(request, "home.html", context)
