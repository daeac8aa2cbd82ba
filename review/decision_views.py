"""The Decisions page: the team's review decisions day by day (who decided which claim,
and whether it still stands), each reviewer's day and their week up to it. Every member
may read it; blind review hides the answers of claims the viewer has not decided."""

from __future__ import annotations

from datetime import timedelta

from django.http import HttpResponse, QueryDict
from django.shortcuts import render
from django.views.decorators.http import require_GET

from review.forms import DecisionFilterForm
from review.selectors.decisions import (
    WEEK_DAYS,
    review_decision_list,
    review_team,
    review_today,
)
from review.selectors.workspace import review_assignees
from verifier.http import MemberRequest
from verifier.permissions import role_required


def _day_query(reviewer: str, day: object) -> str:
    query = QueryDict(mutable=True)
    if reviewer:
        query["reviewer"] = reviewer
    query["day"] = str(day)
    return query.urlencode()


@role_required()
@require_GET
def decisions(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    members = dict(review_assignees(workspace=workspace))
    today = review_today()
    params = request.GET.copy()
    if not params.get("day"):
        params["day"] = today.isoformat()  # shown in the field: the day listed
    form = DecisionFilterForm(params, reviewers=list(members.values()))
    context: dict[str, object] = {"form": form, "today": today}
    if not form.is_valid():
        # An invalid filter lists nothing and says why, beside its field.
        return render(request, "review/decisions.html", context)
    day = form.cleaned_data["day"] or today
    reviewer = form.cleaned_data["reviewer"]
    reviewer_id = next((pk for pk, name in members.items() if name == reviewer), None)
    listed = review_decision_list(
        workspace=workspace,
        day=day,
        reviewer_id=reviewer_id,
        viewer=request.user,
        blind=request.membership.blind_review,
        page_number=request.GET.get("page"),
    )
    team = review_team(workspace=workspace, day=day)
    context |= {
        "day": day,
        "reviewer": reviewer,
        "team": team.day,
        "week": team.week,
        "page": listed.page,
        "rows": listed.rows,
        "previous_day_query": _day_query(reviewer, day - timedelta(days=1)),
        "previous_week_query": _day_query(reviewer, day - timedelta(days=WEEK_DAYS)),
        "next_day_query": _day_query(reviewer, day + timedelta(days=1)) if day < today else "",
        "blind": request.membership.blind_review,
    }
    return render(request, "review/decisions.html", context)
