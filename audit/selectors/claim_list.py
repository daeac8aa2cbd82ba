"""The audit console's claim list and its filters, newest first in keyset pages."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.http import QueryDict

from verifier.models import Claim, Workspace
from verifier.selectors.counts import row_counts
from verifier.selectors.paging import (
    KeysetPage,
    datetime_of,
    int_parts,
    keyset_window,
    micros_of,
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
        claims = claims.filter(quality=filters["quality"])
    if filters.get("q"):
        claims = claims.filter(text__icontains=filters["q"])
    return claims.order_by("-created_at", "-id")


@dataclass(frozen=True)
class ClaimListCursor:
    """A position in the claim list (newest first): ``created-at-in-µs.id``."""

    created_at: datetime
    id: int

    @property
    def token(self) -> str:
        return f"{micros_of(self.created_at)}.{self.id}"

    @classmethod
    def parse(cls, token: str | None) -> ClaimListCursor | None:
        parts = int_parts(token, 2)
        at = datetime_of(parts[0]) if parts is not None else None
        return None if parts is None or at is None else cls(at, parts[1])


_LIST_KEY = '"verifier_claim"."created_at", "verifier_claim"."id"'


def audit_claim_keyset(
    claims: QuerySet[Claim],
    *,
    limit: int,
    after: ClaimListCursor | None = None,
    before: ClaimListCursor | None = None,
    offset: int = 0,
) -> list[Claim]:
    """Up to ``limit`` of ``claims`` newest first, after the cursor ``after`` (or the
    last ones before ``before``): one range of the index ``claim_ws_created``."""
    cursor = after or before
    if cursor is not None:
        op = "<" if before is None else ">"
        claims = claims.filter(
            RawSQL(
                f"({_LIST_KEY}) {op} (%s, %s)",
                [cursor.created_at, cursor.id],
                output_field=BooleanField(),
            )
        )
    if before is not None:
        rows = list(claims.order_by("created_at", "id")[offset : offset + limit])
        return rows[::-1]
    return list(claims.order_by("-created_at", "-id")[offset : offset + limit])


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
    window = keyset_window(
        params,
        page_size=page_size,
        parse=ClaimListCursor.parse,
        fetch=lambda limit, after, before, offset: audit_claim_keyset(
            claims, limit=limit, after=after, before=before, offset=offset
        ),
        token=lambda claim: ClaimListCursor(claim.created_at, claim.pk).token,
    )
    return KeysetPage(
        object_list=window.keys,
        number=window.number,
        count=count,
        page_size=page_size,
        next_query=window.next_query,
        previous_query=window.previous_query,
        first_query=window.first_query,
    )
