"""The workspace's activity log page: who changed members, API keys, webhooks, rule sets
and calibrators, and when (every member may read it)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from verifier.http import MemberRequest
from verifier.models import ActivityAction
from verifier.permissions import role_required
from verifier.selectors import counts
from verifier.selectors.activity import activity_action_filter, activity_page
from verifier.vocabulary import ALL_PACKS


@require_GET
@role_required()
def activity(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    action = activity_action_filter(request.GET)
    asked = request.GET.get("action", "")
    return render(
        request,
        "audit/activity.html",
        {
            "page": activity_page(workspace=workspace, params=request.GET),
            "actions": ActivityAction.choices,
            "action": action,
            # a kind the log does not have (a hand-edited or old address): said, not hidden
            "unknown_action": asked if asked and not action else "",
            "count_cap": f"{counts.COUNT_CAP:,}",
            "all_packs": ALL_PACKS,
        },
    )
