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
    scale: int = 10 ** max(0, floor(log10(n)) - digits + 1)
    return round(n / scale) * scale


def _sql(queryset: QuerySet[Any]) -> tuple[str, tuple[Any, ...]] | None:
    """The queryset's SQL selecting only its primary key (None when it can match
    nothing, e.g. ``.none()``)."""
    try:
        return queryset.order_by().values("pk").query.sql_with_params()
    except EmptyResultSet:
        return None


def _capped(compiled: list[tuple[str, tuple[Any, ...]] | None], cap: int) -> list[int]:
    parts: list[str] = []
    params: list[Any] = []
    for item in compiled:
        if item is None:
            parts.append("0")
            continue
        sql, sql_params = item
        parts.append(f"(SELECT count(*) FROM ({sql} LIMIT {int(cap) + 1}) AS capped)")
        params.extend(sql_params)
    if all(part == "0" for part in parts):
        return [0] * len(parts)
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(parts), params)
        row = cursor.fetchone()
    return [int(n) for n in row]


def _estimates(compiled: list[tuple[str, tuple[Any, ...]]]) -> list[int]:
    """The planner's row estimates of several queries: ``EXPLAIN`` each, all in one
    round trip (nothing is read)."""
    if not compiled:
        return []
    with connection.cursor() as cursor:
        statements = [
            cursor.mogrify("EXPLAIN (FORMAT JSON) " + sql, params) for sql, params in compiled
        ]
        cursor.execute(";\n".join(statements))
        raw = cursor.cursor  # psycopg's cursor: one result set per statement
        plans = [raw.fetchone()[0]]
        while raw.nextset():
            plans.append(raw.fetchone()[0])
    out = []
    for plan in plans:
        if isinstance(plan, str):
            plan = json.loads(plan)
        out.append(int(plan[0]["Plan"]["Plan Rows"]))
    return out


def row_counts(querysets: Sequence[QuerySet[Any]], *, cap: int | None = None) -> list[RowCount]:
    """Exact counts up to ``cap`` (default :data:`COUNT_CAP`; one query for all), the
    planner's estimate past it (one more round trip for all such counts)."""
    cap = COUNT_CAP if cap is None else cap
    if not querysets:
        return []
    compiled = [_sql(q) for q in querysets]
    counted = _capped(compiled, cap)
    over = [(i, item) for i, item in enumerate(compiled) if item is not None and counted[i] > cap]
    estimates = dict(zip((i for i, _ in over), _estimates([item for _, item in over]), strict=True))
    counts = []
    for i, n in enumerate(counted):
        if n <= cap:
            counts.append(RowCount(n))
        elif estimates[i] > cap:
            counts.append(RowCount(estimates[i], "estimate"))
        else:  # the planner guessed low: say what was counted
            counts.append(RowCount(cap, "more_than"))
    return counts
