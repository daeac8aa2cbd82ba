"""The home page's reads for the review console: a reviewer's own progress, and each
role's next actions with their counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db.models import Count, Q
from django.utils import timezone

from review.selectors.decisions import review_day_bounds, review_today
from review.selectors.queue import (
    review_queue_claims,
    review_queue_default_states,
    review_queue_filtered,
)
from verifier.models import ClaimRelation, IngestJob, IngestStatus, Verdict, Workspace
from verifier.permissions import ADMIN_ROLES, DECIDER_ROLES
from verifier.selectors.counts import RowCount, row_counts
from verifier.states import HUMAN_DECISION_LABELS

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass(frozen=True)
class ReviewProgress:
    """A reviewer's own pace: decisions today (since midnight UTC, the Decisions page's
    day) and in the last hour, an undone decision taking its own back."""

    today: int
    last_hour: int


def review_progress(*, workspace: Workspace, reviewer: User) -> ReviewProgress:
    now = timezone.now()
    midnight, _ = review_day_bounds(review_today())
    hour_ago = now - timedelta(hours=1)
    decided = Q(label__in=HUMAN_DECISION_LABELS)
    withdrawn = Q(label="withdrawn")
    row = Verdict.objects.filter(
        claim__workspace=workspace, reviewer=reviewer, at__gte=min(midnight, hour_ago)
    ).aggregate(
        today=Count("id", filter=decided & Q(at__gte=midnight)),
        today_undone=Count("id", filter=withdrawn & Q(at__gte=midnight)),
        hour=Count("id", filter=decided & Q(at__gte=hour_ago)),
        hour_undone=Count("id", filter=withdrawn & Q(at__gte=hour_ago)),
    )
    return ReviewProgress(
        today=max(0, row["today"] - row["today_undone"]),
        last_hour=max(0, row["hour"] - row["hour_undone"]),
    )


@dataclass(frozen=True)
class NextAction:
    """One thing a role can do next on the home page, with how many rows it concerns."""

    title: str
    count: RowCount | None
    path: str
    description: str
    key: str  # stable id for the page and tests


def review_home_actions(*, workspace: Workspace, user: User, role: str) -> list[NextAction]:
    """What this role should look at next, with counts (capped like every count): the
    queue and one's assignments for deciders, contradicted and stale claims for auditors,
    ingest jobs that need attention for admins. One counting query."""
    claims = review_queue_claims(workspace=workspace)
    queue = review_queue_default_states(claims)
    # The same filter as the queue's "Assigned to me", so the two counts agree.
    mine = review_queue_filtered(
        workspace=workspace, reviewer=user, filters={"mine": "true"}
    ).claims
    relations = ClaimRelation.objects.filter(workspace=workspace, needs_review=True)
    contradicted = claims.filter(state="contradicted")
    stale = claims.filter(state_reason="stale_source")
    jobs = IngestJob.objects.filter(
        workspace=workspace, status__in=(IngestStatus.FAILED, IngestStatus.DEGRADED)
    )
    queue_n, mine_n, relations_n, contradicted_n, stale_n, jobs_n = row_counts(
        [queue, mine, relations, contradicted, stale, jobs]
    )
    actions: list[NextAction] = []
    if role in DECIDER_ROLES:
        actions += [
            NextAction(
                "Review the queue",
                queue_n,
                "/review/",
                "Claims the judge could not decide, riskiest first.",
                "queue",
            ),
            NextAction(
                "Yours",
                mine_n,
                "/review/?mine=true",
                "Queue items assigned to you, and the one you are reviewing now.",
                "mine",
            ),
            NextAction(
                "Relations to decide",
                relations_n,
                "/review/relations/",
                "Relations rejected or accepted unchecked.",
                "relations",
            ),
        ]
    actions += [
        NextAction(
            "Contradicted claims",
            contradicted_n,
            "/audit/claims/?state=contradicted",
            "Kept out of strict retrieval: check what the evidence says.",
            "contradicted",
        ),
        NextAction(
            "Source changed under a span",
            stale_n,
            "/audit/claims/?reason=stale_source",
            "Unverified claims whose span is in an earlier version of their cited source; "
            "sent back to the judge, they are bound again in the current one.",
            "stale",
        ),
    ]
    if role in ADMIN_ROLES:
        actions.append(
            NextAction(
                "Ingest jobs to look at",
                jobs_n,
                "/ingest/",
                "Failed or degraded jobs (the judge unreachable, a source refused).",
                "jobs",
            )
        )
    return actions
