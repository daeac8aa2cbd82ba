"""The team's review decisions (the Decisions page): who decided which claim on a day,
whether each decision still stands (or an undo took it back, or someone decided again),
and each reviewer's day beside the others' — what a lead reads to know who did what,
and where a reviewer finds the claim someone else decided this morning.

A decision's standing follows the state writer's rule
(:func:`verifier.states.human_verdict_in_force`): each withdrawal takes back the latest
decision before it that no earlier withdrawal took back. A viewer in blind review sees
who decided which claim, but not what they decided, on a claim they have not decided
themselves (:func:`review.selectors.item.decided_by`, the item page's rule).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Max, Q, QuerySet
from django.db.models.functions import TruncDate
from django.utils import timezone

from audit.paging import CONSOLE_PAGE_SIZE
from review.filters import queue_undecided
from review.models import ReviewAssignment, ReviewLease
from review.selectors.item import decided_by
from verifier import vocabulary
from verifier.models import Claim, Membership, Verdict, Workspace
from verifier.permissions import DECIDER_ROLES
from verifier.states import HUMAN_DECISION_LABELS, WITHDRAWN, human_verdict_in_force
from verifier.time_words import utc_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def review_day_bounds(day: date) -> tuple[datetime, datetime]:
    """The first instant of ``day`` and of the day after, a UTC day as the console says
    (the midnight a reviewer's own "decided today" counts from), whatever zone is
    active: a team spread over time zones shares one day."""
    start = datetime.combine(day, time.min, tzinfo=UTC)
    return start, start + timedelta(days=1)


def review_today() -> date:
    """Today's date in UTC (the day the Decisions page opens on, and the last it lists)."""
    return timezone.now().astimezone(UTC).date()


@dataclass(frozen=True)
class TeamMemberDay:
    """One reviewer's (or admin's) day: decisions net of their undos, as their own
    progress line counts them; the claims still in the queue that are theirs (assigned
    to them or under their live lease, as "Yours" counts them); what they hold now."""

    user_id: int
    username: str
    role: str
    decided: int
    undone: int
    last_decision_at: datetime | None
    queue_left: int
    holding: str  # the public id of the claim under their live lease, "" for none
    holding_until: datetime | None


def _net_decided(decided: int, undone: int) -> int:
    """A day's decisions less the undos made that day, as a reviewer's own progress line
    counts them (the team's day and each day of its week say the same number)."""
    return max(0, decided - undone)


WEEK_DAYS = 7


@dataclass(frozen=True)
class _DayCount:
    """One person's decisions and undos on one UTC day, and their last decision's time."""

    decided: int = 0
    undone: int = 0
    last_at: datetime | None = None


_NONE = _DayCount()


def _decisions_by_day(
    *, workspace: Workspace, first: date, last: date
) -> tuple[dict[int, dict[date, _DayCount]], dict[int, str]]:
    """Every person's decisions and undos per UTC day from ``first`` to ``last`` (one
    query, grouped by person and day), and the names of those who made them."""
    start, _ = review_day_bounds(first)
    _, end = review_day_bounds(last)
    decided = Q(label__in=HUMAN_DECISION_LABELS)
    counted: dict[int, dict[date, _DayCount]] = defaultdict(dict)
    names: dict[int, str] = {}
    for row in (
        Verdict.objects.filter(
            claim__workspace=workspace, reviewer__isnull=False, at__gte=start, at__lt=end
        )
        # The UTC day, as the day bounds say: a team across zones shares one day.
        .annotate(day=TruncDate("at", tzinfo=UTC))
        .values("reviewer_id", "reviewer__username", "day")
        .annotate(
            decided=Count("id", filter=decided),
            undone=Count("id", filter=Q(label=WITHDRAWN)),
            last_at=Max("at", filter=decided),
        )
        .order_by()
    ):
        counted[row["reviewer_id"]][row["day"]] = _DayCount(
            row["decided"], row["undone"], row["last_at"]
        )
        names[row["reviewer_id"]] = row["reviewer__username"]
    return counted, names


@dataclass(frozen=True)
class TeamMemberWeek:
    """One person's week: their decisions on each day (net of that day's undos, as the
    team's day counts them), the week's sum of those, and the undos of the week."""

    user_id: int
    username: str
    per_day: tuple[int, ...]  # one per day of :attr:`TeamWeek.days`, oldest first
    decided: int
    undone: int


@dataclass(frozen=True)
class TeamWeek:
    """The team's decisions over the seven UTC days ending on a day."""

    days: tuple[date, ...]  # oldest first; the last is the day chosen
    members: list[TeamMemberWeek]

    @property
    def anyone_decided(self) -> bool:
        """Whether anybody decided (or undid) anything that week."""
        return any(member.decided or member.undone for member in self.members)


@dataclass(frozen=True)
class Team:
    """The Decisions page's team: each reviewer's and admin's day, and their week up to
    it."""

    day: list[TeamMemberDay]
    week: TeamWeek


def review_team(*, workspace: Workspace, day: date) -> Team:
    """Every reviewer and admin of the workspace with their ``day``, and everyone's
    decisions per UTC day over the seven days ending on it (five queries, whatever the
    team's size or the week's work: no query per day or per person). Someone who decided
    that week and is no reviewer or admin now is listed in the week too, after them."""
    members = list(
        Membership.objects.filter(workspace=workspace, role__in=DECIDER_ROLES)
        .order_by("user__username")
        .values_list("user_id", "user__username", "role")
    )
    days = tuple(day - timedelta(days=back) for back in range(WEEK_DAYS - 1, -1, -1))
    counted, names = _decisions_by_day(workspace=workspace, first=days[0], last=day)
    listed = {user_id for user_id, _, _ in members}
    former = sorted((name, user_id) for user_id, name in names.items() if user_id not in listed)
    week = []
    for user_id, username in [
        *((user_id, username) for user_id, username, _ in members),
        *((user_id, name) for name, user_id in former),
    ]:
        their = counted.get(user_id, {})
        per_day = tuple(
            _net_decided(their.get(each, _NONE).decided, their.get(each, _NONE).undone)
            for each in days
        )
        week.append(
            TeamMemberWeek(
                user_id=user_id,
                username=username,
                per_day=per_day,
                decided=sum(per_day),
                undone=sum(count.undone for count in their.values()),
            )
        )
    return Team(
        day=_team_day(
            workspace=workspace,
            members=members,
            on_day={user_id: their.get(day, _NONE) for user_id, their in counted.items()},
        ),
        week=TeamWeek(days=days, members=week),
    )


def _team_day(
    *,
    workspace: Workspace,
    members: list[tuple[int, str, str]],
    on_day: dict[int, _DayCount],
) -> list[TeamMemberDay]:
    """Each of ``members`` (user id, name, role) with their day's counts ``on_day``, what
    is theirs in the queue now and what they hold (three queries)."""
    now = timezone.now()
    queue = queue_undecided(Claim.objects.filter(workspace=workspace))
    live = ReviewLease.objects.filter(claim__in=queue, expires_at__gt=now)
    # "Yours" on the home page: assigned to them, or the queue item they hold a lease on.
    theirs: dict[int, int] = defaultdict(int)
    for assigned in (
        ReviewAssignment.objects.filter(claim__in=queue)
        .values("assignee_id")
        .annotate(n=Count("id"))
    ):
        theirs[assigned["assignee_id"]] += assigned["n"]
    for held in (
        live.exclude(claim__review_assignment__assignee=F("reviewer"))
        .values("reviewer_id")
        .annotate(n=Count("id"))
    ):
        theirs[held["reviewer_id"]] += held["n"]
    holding = {
        lease.reviewer_id: lease
        for lease in ReviewLease.objects.filter(
            claim__workspace=workspace, expires_at__gt=now
        ).select_related("claim")
    }
    out = []
    for user_id, username, role in members:
        count = on_day.get(user_id, _NONE)
        lease = holding.get(user_id)
        out.append(
            TeamMemberDay(
                user_id=user_id,
                username=username,
                role=role,
                decided=_net_decided(count.decided, count.undone),
                undone=count.undone,
                last_decision_at=count.last_at,
                queue_left=theirs[user_id],
                holding=lease.claim.public_id if lease is not None else "",
                holding_until=lease.expires_at if lease is not None else None,
            )
        )
    return out


@dataclass(frozen=True)
class DecisionRow:
    """One decision (or undo) of the list, with what became of it in words."""

    verdict: Verdict  # with its claim and reviewer
    answer: str  # the decision as the console labels it ("Supports"), or "Undo"
    standing: str  # "Stands.", "Undone at 2026-06-10 12:04 UTC.", "Replaced by omar's decision …"
    stands: bool
    hidden: bool  # blind review hides its answer, its note and the claim's state


@dataclass(frozen=True)
class DecisionList:
    page: Page[Verdict]
    rows: list[DecisionRow]


def _decisions(*, workspace: Workspace, day: date, reviewer_id: int | None) -> QuerySet[Verdict]:
    start, end = review_day_bounds(day)
    verdicts = Verdict.objects.filter(
        claim__workspace=workspace, reviewer__isnull=False, at__gte=start, at__lt=end
    )
    if reviewer_id is not None:
        verdicts = verdicts.filter(reviewer_id=reviewer_id)
    return verdicts.select_related("claim", "reviewer").latest_first()


def review_decision_list(
    *,
    workspace: Workspace,
    day: date,
    reviewer_id: int | None,
    viewer: User,
    blind: bool,
    page_number: str | None,
) -> DecisionList:
    """The ``day``'s decisions and undos, newest first, of one reviewer
    (``reviewer_id``) or everyone, in pages of 50; each with its standing now (three
    queries: the count, the page, the page's claims' decisions)."""
    page = Paginator(
        _decisions(workspace=workspace, day=day, reviewer_id=reviewer_id), CONSOLE_PAGE_SIZE
    ).get_page(page_number)
    verdicts: list[Verdict] = list(page.object_list)
    history: dict[int, list[Verdict]] = defaultdict(list)
    for verdict in (
        Verdict.objects.filter(claim_id__in={v.claim_id for v in verdicts}, reviewer__isnull=False)
        .select_related("reviewer")
        .latest_first()
    ):
        history[verdict.claim_id].append(verdict)
    rows = []
    for verdict in verdicts:
        human = history[verdict.claim_id]
        hidden = blind and not decided_by(human, viewer)
        answer, standing, stands = _standing(verdict, human, hidden=hidden)
        rows.append(
            DecisionRow(
                verdict=verdict, answer=answer, standing=standing, stands=stands, hidden=hidden
            )
        )
    return DecisionList(page=page, rows=rows)


def _standing(verdict: Verdict, human: list[Verdict], *, hidden: bool) -> tuple[str, str, bool]:
    """(answer, what became of it, whether it decides the claim now) of ``verdict``
    among its claim's ``human`` verdicts (newest first)."""
    taken_by: dict[int, Verdict] = {}  # a withdrawn decision's id → its undo
    withdraws: dict[int, Verdict] = {}  # an undo's id → the decision it took back
    for at, later in enumerate(human):
        if later.label != WITHDRAWN:
            continue
        taken = human_verdict_in_force(human[at + 1 :])
        if taken is not None:
            taken_by[taken.pk] = later
            withdraws[later.pk] = taken

    def said(decision: Verdict) -> str:
        return "" if hidden else f" ({vocabulary.label('verdict', decision.label)})"

    if verdict.label == WITHDRAWN:
        taken = withdraws.get(verdict.pk)
        if taken is None:
            return "Undo", "Withdrew no decision.", False
        return (
            "Undo",
            f"Withdrew their decision of {utc_words(taken.at)}{said(taken)}.",
            False,
        )
    answer = "hidden (blind review)" if hidden else vocabulary.label("verdict", verdict.label)
    undo = taken_by.get(verdict.pk)
    if undo is not None:
        return answer, f"Undone at {utc_words(undo.at)}.", False
    in_force = human_verdict_in_force(human)
    if in_force is not None and in_force.pk == verdict.pk:
        return answer, "Stands.", True
    if in_force is not None:
        who = in_force.reviewer.get_username() if in_force.reviewer else "someone"
        return (
            answer,
            f"Replaced by {who}'s decision of {utc_words(in_force.at)}{said(in_force)}.",
            False,
        )
    return answer, "No longer decides the claim.", False
