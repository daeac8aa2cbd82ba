"""The audit console's claim list and its filters, newest first in keyset pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from django.db.models import QuerySet
from django.http import QueryDict

from verifier import vocabulary
from verifier.api.audit_pack import AuditPackScopeSerializer
from verifier.audit_pack.scope import CLAIM_FILTER_KEYS as CLAIM_FILTER_KEYS
from verifier.models import Claim, Workspace
from verifier.selectors.claim_filters import claim_filter_list, claim_filters
from verifier.selectors.counts import row_counts
from verifier.selectors.paging import (
    KeysetPage,
    NewestFirstCursor,
    keyset_page,
    newest_first,
)
from verifier.untrusted_input import text_problem

CLAIM_LIST_PAGE_SIZE: Final = 50
# The claim list's own parameters: its filters and the place in its pages. A claim's
# page carries them (``?list=``) so its "Claims" link leads back to the list as it was.
CLAIM_LIST_PARAMS: Final = (*CLAIM_FILTER_KEYS, "page", "after", "before")
CLAIM_LIST_RETURN_KEY: Final = "list"
_MAX_LIST_PARAM_CHARS: Final = 200


def claim_list_query(params: Mapping[str, str]) -> str:
    """The claim list's own parameters of ``params`` (``CLAIM_LIST_PARAMS``, in that
    order, each once) as a query string; any other key, an empty value, a value too long
    for a filter or one no form could send is left out. Only a query, never an address:
    the page that links back puts it after the list's own path."""
    kept = QueryDict(mutable=True)
    for key in CLAIM_LIST_PARAMS:
        value = str(params.get(key) or "").strip()
        if value and len(value) <= _MAX_LIST_PARAM_CHARS and text_problem(value) is None:
            kept[key] = value
    return kept.urlencode()


def claim_list_return_query(params: Mapping[str, str]) -> str:
    """The list query a claim's page was opened with (its ``?list=``, as
    :func:`claim_list_query` wrote it), read again through that same filter."""
    carried = str(params.get(CLAIM_LIST_RETURN_KEY) or "")
    if not carried or len(carried) > 4 * _MAX_LIST_PARAM_CHARS * len(CLAIM_LIST_PARAMS):
        return ""
    return claim_list_query(QueryDict(carried))


def audit_claim_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The engine's claim-list filters (audit packs of a filtered list read them too);
    a reason may be typed as its label (the field suggests both): it reads as its code."""
    filters = claim_filters(params)
    if filters.get("reason"):
        filters["reason"] = vocabulary.code_of("reason", filters["reason"]) or filters["reason"]
    return filters


def audit_claim_filter_errors(filters: Mapping[str, str]) -> dict[str, str]:
    """What is wrong with ``filters``, by field, under the API's rule for a claim list's
    filters (``GET /connect/v1/claims``, an audit pack's scope): an unknown state or
    reason, a job that is not a number. Empty when every value is allowed."""
    serializer = AuditPackScopeSerializer(data=dict(filters))
    if serializer.is_valid():
        return {}
    return {
        key: " ".join(str(message) for message in messages)
        for key, messages in serializer.errors.items()
    }


def audit_claim_list(*, workspace: Workspace, filters: Mapping[str, str]) -> QuerySet[Claim]:
    return claim_filter_list(workspace=workspace, filters=filters)


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
