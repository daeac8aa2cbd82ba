"""Reads of a workspace's review settings: who an item may be assigned to, the
reviewers' guidelines, and the domain packs its sources carry."""

from __future__ import annotations

from review.models import ReviewGuidelines
from verifier.models import Membership, Source, Workspace
from verifier.permissions import DECIDER_ROLES


def review_assignees(*, workspace: Workspace) -> list[tuple[int, str]]:
    """(user id, username) of the workspace's reviewers and admins: who an item may be
    assigned to."""
    return list(
        Membership.objects.filter(workspace=workspace, role__in=DECIDER_ROLES)
        .order_by("user__username")
        .values_list("user_id", "user__username")
    )


def review_guidelines_get(*, workspace: Workspace) -> ReviewGuidelines | None:
    """The workspace's guidelines for reviewers; None before anyone wrote them."""
    return ReviewGuidelines.objects.filter(workspace=workspace).first()


def review_domain_packs(*, workspace: Workspace) -> list[str]:
    """The domain packs of the workspace's sources: the choices of the queue's filter."""
    rows = (
        Source.objects.filter(workspace=workspace)
        .exclude(domain_pack="")
        .order_by("domain_pack")
        .values_list("domain_pack", flat=True)
        .distinct()
    )
    return list(rows)
