"""Console page for seed 004 relation verification: the statistics, and the relations
waiting for review (rejected ones and ones accepted past the VoG cap), which deciders
accept or reject."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from verifier.http import MemberRequest
from verifier.models import ClaimRelation, DecisionLevel
from verifier.permissions import DECIDER_ROLES, role_required
from verifier.selectors.relation_verification import relation_stats_get, relations_for_review
from verifier.services.relation_verify import RelationReviewError, relation_review_decide

PAGE_SIZE = 25
DAY_CHOICES = (1, 7, 30, 90)
DECISIONS = {"accept": True, "reject": False}


def _days(raw: str | None) -> int | None:
    try:
        days = int(raw or "")
    except ValueError:
        return None
    return days if days in DAY_CHOICES else None


@role_required()
@require_GET
def relations(request: MemberRequest) -> HttpResponse:
    return _render(request)


def _render(request: MemberRequest, *, status: int = 200, error: str = "") -> HttpResponse:
    workspace = request.workspace
    days = _days(request.GET.get("days"))
    level = request.GET.get("level", "")
    rows = relations_for_review(workspace=workspace)
    if level in DecisionLevel.values:
        rows = rows.filter(verification_level=level)
    else:
        level = ""
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    membership = request.membership
    return render(
        request,
        "review/relations.html",
        {
            "stats": relation_stats_get(workspace=workspace, days=days),
            "days": days,
            "day_choices": DAY_CHOICES,
            "level": level,
            "levels": DecisionLevel.choices,
            "page": page,
            "can_decide": membership is not None and membership.role in DECIDER_ROLES,
            "error": error,
        },
        status=status,
    )


@role_required(*DECIDER_ROLES)
@require_POST
def relation_decide(request: MemberRequest, pk: int) -> HttpResponse:
    workspace = request.workspace
    relation = ClaimRelation.objects.filter(workspace=workspace, pk=pk).first()
    if relation is None:
        raise Http404("No such relation.")
    decision = request.POST.get("decision", "")
    if decision not in DECISIONS:
        return _render(request, status=422, error="Choose accept or reject.")
    try:
        relation_review_decide(relation=relation, reviewer=request.user, accept=DECISIONS[decision])
    except RelationReviewError as exc:
        return _render(request, status=409, error=str(exc))
    messages.success(request, f"Relation {relation.pk} {decision}ed.")
    return redirect(reverse("review:relations"))
