"""The audit console's claim list and its filters."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from django.db.models import QuerySet

from verifier.models import Claim, Workspace

CLAIM_FILTER_KEYS: Final = ("state", "reason", "source", "job", "quality", "q")


def audit_claim_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The claim-list filters present in ``params`` (query string), stripped."""
    return {k: params[k].strip() for k in CLAIM_FILTER_KEYS if params.get(k, "").strip()}


def audit_claim_list(*, workspace: Workspace, filters: Mapping[str, str]) -> QuerySet[Claim]:
    claims = Claim.objects.filter(workspace=workspace).select_related("source")
    if filters.get("state"):
        claims = claims.filter(state=filters["state"])
    if filters.get("reason"):
        claims = claims.filter(state_reason=filters["reason"])
    if filters.get("source"):
        claims = claims.filter(source__ref=filters["source"])
    if filters.get("job"):
        job = filters["job"]
        claims = claims.filter(ingest_job_id=int(job)) if job.isdigit() else claims.none()
    if filters.get("quality"):
        claims = claims.filter(quality=filters["quality"])
    if filters.get("q"):
        claims = claims.filter(text__icontains=filters["q"])
    return claims.order_by("-created_at", "-id")
