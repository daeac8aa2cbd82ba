"""Console page for seed 004 relation verification: the statistics, and the relations
waiting for review (rejected ones and ones accepted past the judge's budget), which
deciders accept or reject one at a time or in bulk (a selection, or every relation the
filter matches), after a confirmation that says how many; a reviewer undoes their own
recent decision from the list of decided relations."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.paging import CONSOLE_PAGE_SIZE
from review.selectors.relations import DECIDED_SHOWN, review_relations_decided
from verifier import vocabulary
from verifier.http import MemberRequest
from verifier.models import ClaimRelation, DecisionLevel, RelationKind
from verifier.permissions import DECIDER_ROLES, role_required
from verifier.selectors.relation_verification import (
    relation_stats_get,
    relation_undo_seconds,
    relations_for_review,
    relations_for_review_levels,
)
from verifier.selectors.text_search import search_query_error
from verifier.services.relation_verify import (
    RELATION_BULK_MAX,
    RelationReviewError,
    relation_review_decide,
    relation_review_undo,
    relations_review_decide_bulk,
)
from verifier.untrusted_input import decimal_int

DAY_CHOICES = (1, 7, 30, 90)
DECISIONS = {"accept": True, "reject": False}
FILTER_KEYS = ("level", "kind", "q")


def _days(raw: str | None) -> int | None:
    try:
        days = int(raw or "")
    except ValueError:
        return None
    return days if days in DAY_CHOICES else None


def _filters(params: QueryDict) -> dict[str, str]:
    """The review list's filter from ``params``; unknown values are dropped."""
    level = params.get("level", "")
    kind = params.get("kind", "")
    return {
        "level": level if level in DecisionLevel.values else "",
        "kind": kind if kind in RelationKind.values else "",
        "q": params.get("q", "").strip(),
    }


def _back(request: MemberRequest) -> str:
    """Where a decision returns to: the list as it was shown (its filter and page, the
    form's ``next``), only ever a path of the list itself; else the bare list."""
    base = reverse("review:relations")
    back = request.POST.get("next", "")
    local = back.startswith(base + "?") and back.isprintable() and not set(back) & set("\\# ")
    return back if local else base


def _filter_query(filters: dict[str, str]) -> str:
    query = QueryDict(mutable=True)
    for key, value in filters.items():
        if value:
            query[key] = value
    return query.urlencode()


@role_required()
@require_GET
def relations(request: MemberRequest) -> HttpResponse:
    return _render(request)


def _render(
    request: MemberRequest, *, status: int = 200, error: str = "", params: QueryDict | None = None
) -> HttpResponse:
    """The page; ``params`` are the filter it shows (the query string, or a refused bulk
    form's own fields, so a refusal keeps the filter the reviewer was working in)."""
    workspace = request.workspace
    params = request.GET if params is None else params
    days = _days(params.get("days"))
    filters = _filters(params)
    # A search too long to run is said next to its field and nothing is listed (as the
    # claim list does), never cut short and run as a search nobody typed.
    q_error = search_query_error(filters["q"])
    page = None
    if not q_error:
        rows = relations_for_review(workspace=workspace, **filters)
        page = Paginator(rows, CONSOLE_PAGE_SIZE).get_page(params.get("page"))
    membership = request.membership
    can_decide = membership is not None and membership.role in DECIDER_ROLES
    return render(
        request,
        "review/relations.html",
        {
            "stats": relation_stats_get(workspace=workspace, days=days),
            "days": days,
            "day_choices": DAY_CHOICES,
            "filters": filters,
            "q_error": q_error,
            "filter_query": _filter_query(filters),
            # Only the levels a waiting relation has (with how many): one decided by a
            # reviewer, or accepted by the graph check or the judge, never waits here.
            "levels": _levels(relations_for_review_levels(workspace=workspace), filters),
            "kinds": RelationKind.choices,
            "page": page,
            "can_decide": can_decide,
            "error": error,
            "bulk_max": RELATION_BULK_MAX,
            # The latest decisions of reviewers: what the team decided, by whom, when.
            "decided": review_relations_decided(
                workspace=workspace, reviewer_id=request.user.pk if can_decide else None
            ),
            "decided_shown": DECIDED_SHOWN,
            "undo_minutes": relation_undo_seconds() // 60,
        },
        status=status,
    )


def _levels(waiting: dict[str, int], filters: dict[str, str]) -> list[tuple[str, str]]:
    """The Level filter's options: each level relations wait at, with their count, and
    the level chosen now even when none waits at it any more."""
    options = [(v, f"{vocabulary.label('level', v)} ({n})") for v, n in waiting.items()]
    chosen = filters["level"]
    if chosen and chosen not in waiting:
        options.append((chosen, f"{vocabulary.label('level', chosen)} (0)"))
    return options


def _relation_or_404(request: MemberRequest, pk: int) -> ClaimRelation:
    """Relation ``pk`` of the request's workspace (another workspace's is a 404 too)."""
    relation = ClaimRelation.objects.filter(workspace=request.workspace, pk=pk).first()
    if relation is None:
        raise Http404("No such relation.")
    return relation


@role_required(*DECIDER_ROLES)
@require_POST
def relation_decide(request: MemberRequest, pk: int) -> HttpResponse:
    relation = _relation_or_404(request, pk)
    decision = request.POST.get("decision", "")
    if decision not in DECISIONS:
        return _render(request, status=422, error="Choose accept or reject.")
    try:
        relation_review_decide(relation=relation, reviewer=request.user, accept=DECISIONS[decision])
    except RelationReviewError as exc:
        # Decided meanwhile (another reviewer, a stale page): back to the list, which no
        # longer shows it, saying who decided what and when; a reload sends nothing again.
        messages.warning(request, str(exc))
        return redirect(_back(request))
    messages.success(request, f"Relation {relation.pk} {decision}ed.")
    return redirect(_back(request))


@role_required(*DECIDER_ROLES)
@require_POST
def relation_undo(request: MemberRequest, pk: int) -> HttpResponse:
    """Take back my own recent decision on a relation (a ``withdrawn`` row is logged; the
    relation waits for review again). ``decision`` is the decision the page showed: one
    logged since is never undone. Refusals go back to the list with a warning."""
    relation = _relation_or_404(request, pk)
    try:
        undone = relation_review_undo(
            relation=relation,
            reviewer=request.user,
            decision_id=decimal_int(request.POST.get("decision", "")),
        )
    except RelationReviewError as exc:
        messages.warning(request, str(exc))
        return redirect(_back(request))
    messages.success(
        request,
        f"Undone: your decision on relation {undone.pk} is withdrawn; it waits for review "
        f"again ({vocabulary.label('level', undone.verification_level)}).",
    )
    return redirect(_back(request))


@role_required(*DECIDER_ROLES)
@require_POST
def relations_bulk(request: MemberRequest) -> HttpResponse:
    """Accept or reject the selected relations, or every one the filter matches
    (``scope=filter``): first a confirmation page with the count, then (``confirm``) the
    decisions, each through the single action's service."""
    workspace = request.workspace
    filters = _filters(request.POST)
    back = reverse("review:relations") + (
        f"?{_filter_query(filters)}" if _filter_query(filters) else ""
    )
    decision = request.POST.get("decision", "")
    if decision not in DECISIONS:
        return _render(request, params=request.POST, status=422, error="Choose accept or reject.")
    if search_query_error(filters["q"]):
        # the page says what is wrong beside the search field
        return _render(
            request, params=request.POST, status=400, error="Nothing decided: fix the search."
        )
    rows = relations_for_review(workspace=workspace, **filters)
    whole_filter = request.POST.get("scope") == "filter"
    if not whole_filter:
        ids = [n for i in request.POST.getlist("relations") if (n := decimal_int(i)) is not None]
        if not ids:
            return _render(
                request, params=request.POST, status=422, error="Select at least one relation."
            )
        rows = rows.filter(pk__in=ids)
    chosen = list(rows[: RELATION_BULK_MAX + 1])
    if not chosen:
        return _render(
            request,
            params=request.POST,
            status=422,
            error="No relation waiting for review matches.",
        )
    if len(chosen) > RELATION_BULK_MAX:
        return _render(
            request,
            params=request.POST,
            status=422,
            error=f"More than {RELATION_BULK_MAX} relations match; narrow the filter.",
        )
    if not request.POST.get("confirm"):
        return render(
            request,
            "review/relations_bulk_confirm.html",
            {
                "decision": decision,
                "relations": chosen,
                "count": len(chosen),
                "filters": filters,
                "whole_filter": whole_filter,
                "back": back,
            },
        )
    outcome = relations_review_decide_bulk(
        relations=chosen, reviewer=request.user, accept=DECISIONS[decision]
    )
    verb = "Accepted" if DECISIONS[decision] else "Rejected"
    messages.success(request, f"{verb} {vocabulary.counted(outcome.decided, 'relation')}.")
    if outcome.skipped:
        messages.warning(
            request,
            f"Skipped {vocabulary.counted(outcome.skipped, 'relation')} someone decided meanwhile.",
        )
    return redirect(back)
