"""Reads of review leases: the live lease on a claim, and the claims "next" must not
serve a reviewer (held by another reviewer, or decided with this one's part)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from review.models import ReviewAssignment, ReviewLease
from review.queue_reasons import HUMAN_DECISION_REASONS
from verifier.models import Claim, Verdict

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def review_lease_live(*, claim: Claim) -> ReviewLease | None:
    """The claim's lease while it lasts (with its reviewer); None when there is none or
    it expired."""
    return (
        ReviewLease.objects.filter(claim=claim, expires_at__gt=timezone.now())
        .select_related("reviewer")
        .first()
    )


def review_assigned_to(*, claim: Claim, reviewer: User) -> bool:
    """Whether ``claim`` is assigned to ``reviewer``."""
    return ReviewAssignment.objects.filter(claim=claim, assignee=reviewer).exists()


def review_assigned_to_others(*, reviewer: User) -> Exists:
    """Claims assigned to a member other than ``reviewer``, for ``exclude``: NOT EXISTS,
    an anti-join by the assignment's claim index (``pk__in`` a subquery of every
    workspace's assignments is NOT IN, which PostgreSQL cannot hash once the assignments
    outgrow ``work_mem``: it rescans them for each claim, minutes for 300,000)."""
    return Exists(
        ReviewAssignment.objects.filter(claim_id=OuterRef("pk")).exclude(assignee=reviewer)
    )


def review_held_by_others(*, reviewer: User) -> Q:
    """Claims under a live lease of another reviewer (expired leases free the claim)."""
    return Q(review_lease__expires_at__gt=timezone.now()) & ~Q(review_lease__reviewer=reviewer)


def review_held_by_others_among(*, claims: Sequence[Claim], reviewer: User) -> dict[str, str]:
    """Of ``claims``, those under a live lease of another reviewer: public id → the
    holder's username (what a bulk action will skip, said on its confirmation page)."""
    rows = ReviewLease.objects.filter(
        claim__in=[c.pk for c in claims], expires_at__gt=timezone.now()
    ).exclude(reviewer=reviewer)
    return dict(rows.values_list("claim__public_id", "reviewer__username"))


def review_decided_by(*, reviewer: User) -> Q:
    """Claims whose state rests on a reviewer's decision that ``reviewer`` took part in:
    "next" never serves them to that reviewer, whatever the filter. The reason is
    checked first (a column of the queue index), the verdicts only for decided claims."""
    mine = Verdict.objects.filter(claim=OuterRef("pk"), reviewer=reviewer)
    return Q(state_reason__in=HUMAN_DECISION_REASONS) & Q(Exists(mine))


@dataclass(frozen=True)
class OutOfReach:
    """Claims a filter still holds that "next" does not serve this reviewer."""

    held: int  # under another reviewer's live lease
    decided: int  # decided with this reviewer's part
    skipped: int  # skipped in this round of reviewing

    def in_words(self) -> str:
        parts = [
            f"{self.held} being reviewed by someone else (back when they finish or their hold "
            "expires)"
            if self.held
            else "",
            f"{self.decided} you have decided" if self.decided else "",
            f"{self.skipped} you skipped (Start reviewing again to see them)"
            if self.skipped
            else "",
        ]
        said = [p for p in parts if p]
        return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def review_out_of_reach(
    *, queryset: QuerySet[Claim], reviewer: User, skipped: Sequence[int]
) -> OutOfReach:
    """Why "next" found nothing although ``queryset`` (the filter) is not empty: one
    counting query, run when the reviewer reaches the end of a filter."""
    counts = queryset.aggregate(
        held=Count("pk", filter=review_held_by_others(reviewer=reviewer)),
        decided=Count(
            "pk",
            filter=review_decided_by(reviewer=reviewer) & ~review_held_by_others(reviewer=reviewer),
        ),
        skipped=Count(
            "pk",
            filter=Q(pk__in=list(skipped))
            & ~review_held_by_others(reviewer=reviewer)
            & ~review_decided_by(reviewer=reviewer),
        ),
    )
    return OutOfReach(counts["held"], counts["decided"], counts["skipped"])
