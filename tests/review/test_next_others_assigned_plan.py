"""'Start reviewing' / next and the 'Whose: Nobody's' filter leave out assigned claims by
an anti-join (NOT EXISTS), never by NOT IN over every assignment: PostgreSQL cannot hash a
NOT IN that outgrows work_mem and rescans the assignments for each claim (300,000
assignments held a 'next' over fifteen minutes). The plan is read, not timed: with many
assignments and little work_mem, no plain (unhashed) SubPlan reads the assignments."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from review.selectors.queue import review_queue_filtered
from review.services import review_lease_next
from tests.factories import make_user

ASSIGNED = 5_000


def _assign_many(template_pk: int, assignee_pk: int, by_pk: int) -> None:
    """ASSIGNED copies of a queued claim, each assigned to ``assignee``, analysed."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_name = 'verifier_claim' AND is_generated = 'NEVER'"
        )
        names = [row[0] for row in cursor.fetchall()]
        columns = ", ".join(f'"{n}"' for n in names)
        copied = ", ".join(f'r."{n}"' for n in names)
        cursor.execute(
            f"INSERT INTO verifier_claim ({columns}) SELECT {copied} "
            "FROM verifier_claim c, generate_series(1, %s) g, LATERAL jsonb_populate_record("
            "NULL::verifier_claim, to_jsonb(c) || jsonb_build_object("
            "'id', 10000000 + g, 'public_id', 'clm_plan' || g)) r WHERE c.id = %s",
            [ASSIGNED, template_pk],
        )
        cursor.execute(
            "INSERT INTO review_reviewassignment (claim_id, assignee_id, assigned_by_id, "
            "assigned_at) SELECT id, %s, %s, now() FROM verifier_claim WHERE id > 10000000",
            [assignee_pk, by_pk],
        )
        cursor.execute("ANALYZE verifier_claim")
        cursor.execute("ANALYZE review_reviewassignment")


def _plain_subplans_over_assignments(sql: str) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL work_mem = '64kB'")
        cursor.execute("EXPLAIN " + sql)
        lines = [row[0] for row in cursor.fetchall()]
    found = []
    for n, line in enumerate(lines):
        if line.strip().startswith("SubPlan"):  # "hashed SubPlan" is fine
            indent = len(line) - len(line.lstrip())
            body = []
            for later in lines[n + 1 :]:
                if len(later) - len(later.lstrip()) <= indent:
                    break
                body.append(later)
            if any("review_reviewassignment" in b for b in body):
                found.append("\n".join([line, *body]))
    return found


def _queries_reading_assignments(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if "review_reviewassignment" in q["sql"]]


def test_next_reads_others_assignments_by_an_anti_join(
    workspace, reviewer, make_queue_claim, admin_user
):
    lena = make_user("lena", workspace=workspace, role="reviewer")
    template = make_queue_claim("abstained")
    _assign_many(template.pk, lena.pk, admin_user.pk)
    selection = review_queue_filtered(workspace=workspace, reviewer=reviewer, filters={})
    with CaptureQueriesContext(connection) as ctx:
        lease = review_lease_next(
            workspace=workspace,
            reviewer=reviewer,
            queryset=selection.claims,
            filters=selection.filters,
        )
    assert lease is not None and lease.claim_id == template.pk  # the one not assigned
    queries = _queries_reading_assignments(ctx)
    assert queries
    for sql in queries:
        assert _plain_subplans_over_assignments(sql) == []


def test_whose_nobody_reads_assignments_by_an_anti_join(
    workspace, reviewer, make_queue_claim, admin_user
):
    lena = make_user("lena", workspace=workspace, role="reviewer")
    template = make_queue_claim("abstained")
    _assign_many(template.pk, lena.pk, admin_user.pk)
    selection = review_queue_filtered(
        workspace=workspace, reviewer=reviewer, filters={"mine": "nobody"}
    )
    with CaptureQueriesContext(connection) as ctx:
        ids = list(selection.claims.values_list("pk", flat=True)[:20])
    assert ids == [template.pk]
    queries = _queries_reading_assignments(ctx)
    assert queries
    for sql in queries:
        assert _plain_subplans_over_assignments(sql) == []
