"""Keyset paging for list pages: the page's rows come from one index range after (or
before) a cursor, the sort key of the row next to the page, carried in the query
string (``after=`` / ``before=``); ``page=`` only numbers the page for display. Old
``?page=N`` links without a cursor skip rows, up to :data:`MAX_OFFSET_PAGE`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db.models import BooleanField, QuerySet
from django.db.models.expressions import RawSQL
from django.http import QueryDict

from verifier.selectors.counts import RowCount
from verifier.untrusted_input import decimal_int

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def micros_of(at: datetime) -> int:
    """``at`` as whole microseconds since the epoch (for a cursor token)."""
    return (at - EPOCH) // timedelta(microseconds=1)


def datetime_of(micros: int) -> datetime | None:
    try:
        return EPOCH + timedelta(microseconds=micros)
    except OverflowError:
        return None


def int_parts(token: str | None, n: int) -> list[int] | None:
    """The ``n`` dot-separated integers of a cursor token; None when malformed."""
    parts = (token or "").split(".")
    numbers = [decimal_int(p.removeprefix("-"), max_digits=22) for p in parts]
    if len(parts) != n or any(v is None for v in numbers):
        return None
    return [
        -v if p.startswith("-") else v for p, v in zip(parts, numbers, strict=True) if v is not None
    ]


@dataclass(frozen=True)
class KeysetPage:
    """One page of a keyset-paged list: its rows, the list's count (exact or estimated),
    and the query strings of the pages around it."""

    object_list: list[Any]
    number: int  # the page's number, carried in the query string for display
    count: RowCount
    page_size: int
    next_query: str | None
    previous_query: str | None
    first_query: str | None

    @property
    def has_next(self) -> bool:
        return self.next_query is not None

    @property
    def has_previous(self) -> bool:
        return self.previous_query is not None

    @property
    def num_pages(self) -> int | None:
        """Known only when the count is exact."""
        if not self.count.exact:
            return None
        return max(1, -(-self.count.n // self.page_size))

    @property
    def paged(self) -> bool:
        return self.has_next or self.has_previous


# ``?page=N`` without a cursor (links from before keyset paging) skips rows; only so far.
MAX_OFFSET_PAGE = 20
CURSOR_KEYS = ("after", "before", "page")


def page_number(params: Mapping[str, Any]) -> int:
    raw = str(params.get("page") or "")
    number = decimal_int(raw, max_digits=6)
    return number if number else 1


def keyset_page_queries(
    params: QueryDict,
    *,
    first: str | None,
    last: str | None,
    number: int,
    more_after: bool,
    more_before: bool,
) -> tuple[str | None, str | None, str | None]:
    """The query strings of the next, previous and first pages around a page whose
    first and last rows have cursor tokens ``first`` and ``last``."""
    base = params.copy()
    for key in CURSOR_KEYS:
        base.pop(key, None)
    next_query = previous_query = first_query = None
    if more_after and last is not None:
        q = base.copy()
        q["after"] = last
        q["page"] = str(number + 1)
        next_query = q.urlencode()
    if more_before and first is not None:
        q = base.copy()
        if number > 2:
            q["before"] = first
            q["page"] = str(number - 1)
        previous_query = q.urlencode()
    if number > 1:
        first_query = base.urlencode()
    return next_query, previous_query, first_query


K = TypeVar("K")


@dataclass(frozen=True)
class KeysetWindow(Generic[K]):
    keys: list[K]
    number: int
    next_query: str | None
    previous_query: str | None
    first_query: str | None


def keyset_window(
    params: QueryDict,
    *,
    page_size: int,
    parse: Callable[[str | None], Any],
    fetch: Callable[[int, Any, Any, int], Sequence[K]],
    token: Callable[[K], str],
) -> KeysetWindow[K]:
    """The keys of the page ``params`` asks for (``after=``, ``before=`` or an old
    ``page=``) and the query strings of the pages around it. ``fetch(limit, after,
    before, offset)`` reads keys (rows) in list order, ``token(key)`` is the cursor
    token of one; one read per page (two when a
    ``before=`` page turns out to be the first, or a cursor is past the end)."""
    number = page_number(params)
    after = parse(params.get("after"))
    before = None if after is not None else parse(params.get("before"))
    offset = 0
    if after is None and before is None and number > 1:
        number = min(number, MAX_OFFSET_PAGE)
        offset = (number - 1) * page_size
    keys = list(fetch(page_size + 1, after, before, offset))
    if before is not None and len(keys) <= page_size:  # back at the start: the first page
        before, number = None, 1
        keys = list(fetch(page_size + 1, None, None, 0))
    if before is not None:
        more_before, more_after = True, True
        keys = keys[-page_size:]
    else:
        more_before, more_after = after is not None or offset > 0, len(keys) > page_size
        keys = keys[:page_size]
    if not keys and number > 1:  # past the end (or a stale cursor): the first page
        keys = list(fetch(page_size + 1, None, None, 0))
        more_before, more_after, number = False, len(keys) > page_size, 1
        keys = keys[:page_size]
    next_query, previous_query, first_query = keyset_page_queries(
        params,
        first=token(keys[0]) if keys else None,
        last=token(keys[-1]) if keys else None,
        number=number,
        more_after=more_after,
        more_before=more_before,
    )
    return KeysetWindow(keys, number, next_query, previous_query, first_query)


def keyset_page(
    params: QueryDict,
    *,
    page_size: int,
    count: RowCount,
    parse: Callable[[str | None], Any],
    fetch: Callable[[int, Any, Any, int], Sequence[K]],
    token: Callable[[K], str],
) -> KeysetPage:
    """The :class:`KeysetPage` of :func:`keyset_window`'s rows, with ``count``."""
    window = keyset_window(params, page_size=page_size, parse=parse, fetch=fetch, token=token)
    return KeysetPage(
        object_list=list(window.keys),
        number=window.number,
        count=count,
        page_size=page_size,
        next_query=window.next_query,
        previous_query=window.previous_query,
        first_query=window.first_query,
    )


# --- lists newest first by (created_at, id) ----------------------------------------


@dataclass(frozen=True)
class NewestFirstCursor:
    """A position in a list newest first by ``(created_at, id)``: ``created-at-in-µs.id``."""

    created_at: datetime
    id: int

    @property
    def token(self) -> str:
        return f"{micros_of(self.created_at)}.{self.id}"

    @classmethod
    def parse(cls, token: str | None) -> NewestFirstCursor | None:
        parts = int_parts(token, 2)
        at = datetime_of(parts[0]) if parts is not None else None
        return None if parts is None or at is None else cls(at, parts[1])


def newest_first(
    queryset: QuerySet[Any],
    *,
    table: str,
    after: NewestFirstCursor | None = None,
    before: NewestFirstCursor | None = None,
) -> QuerySet[Any]:
    """The rows of ``queryset`` (of ``table``, with ``created_at`` and ``id``) past the
    cursor: after ``after`` newest first, or — with ``before`` — the ones before it
    oldest first (slice them, then reverse the slice). With an index on (workspace,
    created_at, id), one index range per page."""
    cursor = after or before
    if cursor is not None:
        key = f'"{table}"."created_at", "{table}"."id"'
        op = "<" if before is None else ">"
        queryset = queryset.filter(
            RawSQL(
                f"({key}) {op} (%s, %s)",
                [cursor.created_at, cursor.id],
                output_field=BooleanField(),
            )
        )
    if before is not None:
        return queryset.order_by("created_at", "id")
    return queryset.order_by("-created_at", "-id")
