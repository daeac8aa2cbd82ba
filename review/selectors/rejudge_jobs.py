"""Reads of the review queue's bulk send-backs to the judge (``ReviewRejudgeJob``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from django.http import Http404

if TYPE_CHECKING:
    from django.contrib.auth.models import User

from verifier import vocabulary
from verifier.models import ReviewRejudgeJob, ReviewRejudgeJobStatus, Workspace

# Why a send-back left a claim alone (``ReviewRejudgeJob.skipped``), in the page's words
# after "Skipped 1 claim" and "Skipped 3 claims"; the order they are listed in.
SKIPPED_WHY: Final[Mapping[str, tuple[str, str]]] = {
    "held": ("another reviewer was working on",) * 2,
    "changed": (
        "that changed after the selection was confirmed (someone decided or changed it)",
        "that changed after the selection was confirmed (someone decided or changed them)",
    ),
    "excluded": ("that was excluded (restore it first)", "that were excluded (restore them first)"),
    "gone": ("that no longer exists", "that no longer exist"),
}


@dataclass(frozen=True)
class SkippedGroup:
    words: str  # "Skipped 2 claims another reviewer was working on" (:data:`SKIPPED_WHY`)
    claims: list[tuple[str, str]]  # (public id, or "#<id>" for one gone; holder or "")


def review_rejudge_job_get(*, workspace: Workspace, job_id: int) -> ReviewRejudgeJob:
    """The workspace's send-back job, or the same 404 for a missing one and another's."""
    job = (
        ReviewRejudgeJob.objects.filter(workspace=workspace, pk=job_id)
        .select_related("created_by")
        .first()
    )
    if job is None:
        raise Http404("No such send-back to the judge in this workspace.")
    return job


def review_rejudge_jobs_under_way(
    *, workspace: Workspace, user: User, limit: int = 5
) -> list[ReviewRejudgeJob]:
    """``user``'s send-backs in ``workspace`` still queued or running, newest first: the
    queue page links to their progress (the job page is otherwise reached only from the
    answer to the bulk action)."""
    return list(
        ReviewRejudgeJob.objects.filter(
            workspace=workspace,
            created_by=user,
            status__in=(ReviewRejudgeJobStatus.QUEUED, ReviewRejudgeJobStatus.RUNNING),
        ).order_by("-created_at", "-pk")[:limit]
    )


def review_rejudge_job_skipped(*, job: ReviewRejudgeJob) -> list[SkippedGroup]:
    """The claims the job left alone, grouped by why, in :data:`SKIPPED_WHY`'s order."""
    groups: dict[str, list[tuple[str, str]]] = {why: [] for why in SKIPPED_WHY}
    for entry in job.skipped:
        why = entry.get("why", "")
        if why in groups:
            groups[why].append((entry["claim"], entry.get("holder", "")))
    return [
        SkippedGroup(
            f"Skipped {vocabulary.counted(len(claims), 'claim')} "
            f"{SKIPPED_WHY[why][len(claims) != 1]}",
            claims,
        )
        for why, claims in groups.items()
        if claims
    ]
