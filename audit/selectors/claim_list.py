"""The audit console's claim list and its filters, newest first in keyset pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from django.db.models import QuerySet
from django.http import QueryDict

from verifier.models import Claim, Workspace
from verifier.selectors.claims import quality_class_filter
from verifier.selectors.counts import row_counts
from verifier.selectors.paging import (
    KeysetPage,
    NewestFirstCursor,
    keyset_page,
    newest_first,
)

CLAIM_FILTER_KEYS: Final = ("state", "reason", "source", "job", "quality", "q")
CLAIM_LIST_PAGE_SIZE: Final = 50


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
        # The class as the reports count it: capped by the claim's state.
        claims = claims.filter(quality_class_filter(filters["quality"]))
    if filters.get("q"):
        claims = claims.filter(text__icontains=filters["q"])
    return claims.order_by("-created_at", "-id")


def audit_claim_keyset(
    claims: QuerySet[Claim],
    *,
    limit: int,
    after: NewestFirstCursor | None = None,
    before: NewestFirstCursor | None = None,
    offset: int = 0,
) -> list[Claim]:
    """Up to ``limit`` of ``claims`` newest first, after the cursor ``after`` (or the
    last ones before ``before``): one range of the index ``claim_ws_created``."""
    ordered = newest_first(claims, table="verifier_claim", after=after, before=before)
    rows = list(ordered[offset : offset + limit])
    return rows[::-1] if before is not None else rows


def audit_claim_page(
    *,
    workspace: Workspace,
    filters: Mapping[str, str],
    params: QueryDict,
    page_size: int = CLAIM_LIST_PAGE_SIZE,
) -> KeysetPage:
    """One keyset page of the claim list by ``filters``, with the list's count: exact up
    to ``COUNT_CAP`` rows, the planner's estimate past it. Two queries."""
    claims = audit_claim_list(workspace=workspace, filters=filters)
    (count,) = row_counts([claims])
    return keyset_page(
        params,
        page_size=page_size,
        count=count,
        parse=NewestFirstCursor.parse,
        fetch=lambda limit, after, before, offset: audit_claim_keyset(
            claims, limit=limit, after=after, before=before, offset=offset
        ),
        token=lambda claim: NewestFirstCursor(claim.created_at, claim.pk).token,
    )
