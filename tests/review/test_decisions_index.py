"""The Decisions page reads a day's decisions from ``verdict_human_latest`` (people's
verdicts only, newest first), not from every verdict of the workspace's claims: the
judges write most verdicts, and all of them were read for a day of a few dozen."""

from __future__ import annotations

from datetime import date

import pytest
from django.db import connection

from review.selectors.decisions import _decisions
from tests.factories import make_workspace

pytestmark = pytest.mark.django_db


def test_the_index_holds_peoples_verdicts_newest_first() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'verdict_human_latest'")
        (definition,) = cursor.fetchone()
    assert definition.endswith("(at DESC, id DESC) WHERE (reviewer_id IS NOT NULL)")


@pytest.mark.parametrize("one_reviewer", [False, True])
def test_a_days_decisions_are_read_from_it(one_reviewer: bool) -> None:
    workspace = make_workspace()
    decisions = _decisions(
        workspace=workspace, day=date(2026, 6, 10), reviewer_id=1 if one_reviewer else None
    )
    with connection.cursor() as cursor:
        # As on a large table: no full scan of the (tiny) test table to choose instead.
        for setting in ("seqscan", "bitmapscan"):
            cursor.execute(f"SET LOCAL enable_{setting} = off")
    plan = decisions.explain()
    assert "verdict_human_latest" in plan, plan
