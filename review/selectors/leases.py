"""Reads of review leases: the live lease on a claim, and the claims "next" must not
serve a reviewer (held by another reviewer, or decided with this one's part)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from review.models import ReviewLease
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


def review_held_by_others(*, reviewer: User) -> Q:
    """Claims under a live lease of another reviewer (expired leases free the claim)."""
    return Q(review_lease__expires_at__gt=timezone.now()) & ~Q(review_lease__reviewer=reviewer)


def review_decided_by(*, reviewer: User) -> Q:
    """Claims whose state rests on a reviewer's decision that ``reviewer`` took part in:
    "next" never serves them to that reviewer, whatever the filter. The reason is
    checked first (a column of the queue index), the verdicts only for decided claims."""
    mine = Verdict.objects.filter(claim=OuterRef("pk"), reviewer=reviewer)
    return Q(state_reason__in=HUMAN_DECISION_REASONS) & Q(Exists(mine))
