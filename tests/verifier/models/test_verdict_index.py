"""A claim's latest verdict (by -at, -id) comes first from ``verdict_claim_latest``: the
retrieve's claim load and the review queue read it without sorting the claim's verdicts."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Verdict
from verifier.selectors.retrieval import _SERVED_CLAIMS_SQL

pytestmark = pytest.mark.django_db


def test_the_index_orders_a_claims_verdicts_newest_first():
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'verdict_claim_latest'")
        (definition,) = cursor.fetchone()
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'verdict_claim_at'")
        assert cursor.fetchone() is None  # replaced, not kept beside it
    assert definition.endswith("(claim_id, at DESC, id DESC)")


def test_the_claim_load_reads_the_latest_verdict_without_a_sort():
    claim = make_claim(make_source(make_workspace()), "A claim.", published=True)
    for label in ("entailed", "contradicted"):
        Verdict.objects.create(
            claim=claim,
            judge_model="m",
            judge_family="heuristic",
            prompt_version=1,
            label=label,
            confidence=0.5,
        )
    with connection.cursor() as cursor:
        # As on a large table: index lookups, not a scan of the (tiny) test tables, and
        # sorting as costly as it is there (with the suite's statistics the planner may
        # otherwise sort a claim's two verdicts from the plain claim_id index).
        for setting in ("seqscan", "bitmapscan", "sort", "incremental_sort"):
            cursor.execute(f"SET LOCAL enable_{setting} = off")
        cursor.execute("EXPLAIN " + _SERVED_CLAIMS_SQL, [claim.workspace_id, [claim.pk]])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Index Scan using verdict_claim_latest on verifier_verdict" in plan, plan
    # With (claim, -at) it was an Incremental Sort of each claim's verdicts on "id",
    # which even disabled stays in the plan: no index gave that order.
    assert "Sort" not in plan, plan
