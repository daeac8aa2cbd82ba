"""Reads of the workspace's activity log, newest first, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import QueryDict

from verifier.models import ActivityAction, Workspace, WorkspaceEvent
from verifier.selectors.counts import row_counts
from verifier.selectors.paging import KeysetPage, NewestFirstCursor, keyset_page, newest_first

ACTIVITY_PAGE_SIZE = 50


def activity_action_filter(params: QueryDict) -> str:
    """The ``action`` the list is filtered by: one of the log's actions, else none."""
    action = params.get("action", "")
    return action if action in ActivityAction.values else ""


def activity_page(
    *, workspace: Workspace, params: QueryDict, page_size: int | None = None
) -> KeysetPage:
    """One keyset page of the workspace's activity newest first (``?action=`` narrows it
    to one kind of change), with its count."""
    events = WorkspaceEvent.objects.filter(workspace=workspace)
    action = activity_action_filter(params)
    if action:
        events = events.filter(action=action)
    (count,) = row_counts([events])
    return keyset_page(
        params,
        page_size=page_size or ACTIVITY_PAGE_SIZE,
        count=count,
        parse=NewestFirstCursor.parse,
        fetch=lambda limit, after, before, offset: _rows(
            events, limit=limit, after=after, before=before, offset=offset
        ),
        token=lambda row: NewestFirstCursor(row.created_at, row.id).token,
    )


def _rows(
    events: QuerySet[WorkspaceEvent],
    *,
    limit: int,
    after: NewestFirstCursor | None,
    before: NewestFirstCursor | None,
    offset: int,
) -> list[WorkspaceEvent]:
    rows = list(
        newest_first(events, table=WorkspaceEvent._meta.db_table, after=after, before=before)[
            offset : offset + limit
        ]
    )
    return rows[::-1] if before is not None else rows
