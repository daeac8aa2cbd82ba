"""Row counts for list pages that never scan a large table on a page view.

Each count is exact up to :data:`COUNT_CAP` rows: the rows are read through
``LIMIT COUNT_CAP + 1`` (an index range that stops early), all of a page's counts in
one query. Past the cap the page shows the planner's estimate, from ``EXPLAIN`` of
the same query (no rows read), and says so in words: "about 333,000". Small
workspaces (the demo, the tests) always get exact numbers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from math import floor, log10
from typing import Any, Literal

from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import QuerySet

COUNT_CAP = 1000

CountKind = Literal["exact", "estimate", "more_than"]


@dataclass(frozen=True)
class RowCount:
    """How many rows a list has: ``exact``; the planner's ``estimate`` (past the cap);
    or ``more_than`` ``n`` when the estimate fell below what was counted."""

    n: int
    kind: CountKind = "exact"

    @property
    def exact(self) -> bool:
        return self.kind == "exact"

    @property
    def words(self) -> str:
        if self.kind == "exact":
            return f"{self.n:,}"
        if self.kind == "more_than":
            return f"more than {self.n:,}"
        return f"about {_round_significant(self.n, 3):,}"

    @property
    def short(self) -> str:
        """For a chip: "12", "~33,400", "1,000+"."""
        if self.kind == "exact":
            return f"{self.n:,}"
        if self.kind == "more_than":
            return f"{self.n:,}+"
        return f"~{_round_significant(self.n, 3):,}"

    def __str__(self) -> str:
        return self.words


def _round_significant(n: int, digits: int) -> int:
    if n <= 0:
        return 0
    scale = 10 ** max(0, floor(log10(n)) - digits + 1)
    return round(n / scale) * scale


def _sql(queryset: QuerySet[Any]) -> tuple[str, tuple[Any, ...]] | None:
    """The queryset's SQL selecting only its primary key (None when it can match
    nothing, e.g. ``.none()``)."""
    try:
        return queryset.order_by().values("pk").query.sql_with_params()
    except EmptyResultSet:
        return None


def capped_counts(querysets: Sequence[QuerySet[Any]], *, cap: int) -> list[int]:
    """Each queryset's row count, counted up to ``cap + 1`` rows, in one query."""
    parts: list[str] = []
    params: list[Any] = []
    for queryset in querysets:
        compiled = _sql(queryset)
        if compiled is None:
            parts.append("0")
            continue
        sql, sql_params = compiled
        parts.append(f"(SELECT count(*) FROM ({sql} LIMIT {int(cap) + 1}) AS capped)")
        params.extend(sql_params)
    if not parts:
        return []
    if all(part == "0" for part in parts):
        return [0] * len(parts)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts), params)
        row = cursor.fetchone()
    return [int(n) for n in row]


def estimated_count(queryset: QuerySet[Any]) -> int:
    """The planner's estimate of the queryset's rows (``EXPLAIN``, nothing is read)."""
    compiled = _sql(queryset)
    if compiled is None:
        return 0
    sql, params = compiled
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])


def row_counts(querysets: Sequence[QuerySet[Any]], *, cap: int | None = None) -> list[RowCount]:
    """Exact counts up to ``cap`` (default :data:`COUNT_CAP`; one query for all), the
    planner's estimate past it (one ``EXPLAIN`` for each such count)."""
    cap = COUNT_CAP if cap is None else cap
    counted = capped_counts(querysets, cap=cap)
    counts = []
    for queryset, n in zip(querysets, counted, strict=True):
        if n <= cap:
            counts.append(RowCount(n))
            continue
        estimate = estimated_count(queryset)
        counts.append(
            RowCount(estimate, "estimate") if estimate > cap else RowCount(cap, "more_than")
        )
    return counts
