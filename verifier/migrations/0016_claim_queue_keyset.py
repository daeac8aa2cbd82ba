"""The review queue and the claim list at 1,000,000 claims: stored sort keys, the
indexes their keyset pages read, and the triggers that keep ``Claim.dependents``.

- ``Claim.queue_rank``: the risk rank of ``state_reason`` (a stored generated column).
- ``Claim.dependents``: relations in and out of the claim, kept by statement-level
  triggers on ``verifier_claimrelation`` for claims in a queued state (unverified,
  contradicted, inferred), recounted by a row trigger when a claim enters one of those
  states. Trace rows do not count: every retrieve writes them for every claim it
  considered, queued ones included (ingest publishes them too), and counting them would
  make each retrieve update claim rows (a new row version, so an HNSW insert, and row
  locks that concurrent retrieves would queue on). Relations are written by ingest and
  relation verification, not on the serving path. The triggers lock the claims they
  update in id order, so two concurrent writers never deadlock. The column belongs
  to the triggers: an UPDATE from the application keeps the stored value.
  Backfilled here for queued claims. (Counts can lag only when a relation is written
  by a transaction that commits after a concurrent one moved its claim into the
  queue; the ordering is then off by that one relation until the next recount.)
- ``claim_state_reason_stats``: joint statistics of state and reason, for the
  planner's estimates the pages show past the exact-count cap.
- ``claim_queue_keyset``: the queue order (workspace, rank, dependents descending,
  age, id), partial on the queued states, for the queue page, its keyset cursor and
  the next-item lease query; ``claim_ws_created`` for the claim list's order.
"""

from django.db import migrations, models


QUEUED = "('unverified', 'contradicted', 'inferred')"

RECOUNT = (
    "(SELECT count(*) FROM verifier_claimrelation WHERE to_claim_id = NEW.id)"
    " + (SELECT count(*) FROM verifier_claimrelation WHERE from_claim_id = NEW.id)"
)


def _apply(deltas: str) -> str:
    """Add each claim's summed delta from ``deltas`` (claim_id, n) to queued claims,
    their rows locked in id order first (concurrent writers take them in one order)."""
    return f"""
        PERFORM 1 FROM verifier_claim c
        WHERE c.id IN (SELECT claim_id FROM ({deltas}) e) AND c.state IN {QUEUED}
        ORDER BY c.id FOR NO KEY UPDATE;
        UPDATE verifier_claim c SET dependents = greatest(0, c.dependents + d.n)
        FROM (SELECT claim_id, sum(n) AS n FROM ({deltas}) e
              GROUP BY claim_id HAVING sum(n) <> 0) d
        WHERE c.id = d.claim_id AND c.state IN {QUEUED};"""


RELATION_NEW = "SELECT from_claim_id AS claim_id, 1 AS n FROM new_rows UNION ALL SELECT to_claim_id, 1 FROM new_rows"
RELATION_OLD = "SELECT from_claim_id AS claim_id, -1 AS n FROM old_rows UNION ALL SELECT to_claim_id, -1 FROM old_rows"


def _count_function(name: str, new: str, old: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_apply(new)}
    ELSIF TG_OP = 'DELETE' THEN {_apply(old)}
    ELSE {_apply(new + " UNION ALL " + old)}
    END IF;
    RETURN NULL;
END $$;"""


def _count_triggers(table: str, function: str) -> str:
    return f"""
CREATE TRIGGER {table}_dependents_ins AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_dependents_del AFTER DELETE ON {table}
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_dependents_upd AFTER UPDATE ON {table}
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {function}();"""


FORWARD = f"""
{_count_function("verifier_claimrelation_dependents", RELATION_NEW, RELATION_OLD)}
{_count_triggers("verifier_claimrelation", "verifier_claimrelation_dependents")}

CREATE OR REPLACE FUNCTION verifier_claim_dependents_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF pg_trigger_depth() > 1 THEN
        RETURN NEW;  -- the count triggers' own update
    END IF;
    IF NEW.state IN {QUEUED} AND OLD.state NOT IN {QUEUED} THEN
        NEW.dependents := {RECOUNT};
    ELSE
        NEW.dependents := OLD.dependents;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER verifier_claim_dependents_guard BEFORE UPDATE ON verifier_claim
    FOR EACH ROW
    WHEN (NEW.dependents IS DISTINCT FROM OLD.dependents OR NEW.state IS DISTINCT FROM OLD.state)
    EXECUTE FUNCTION verifier_claim_dependents_guard();

-- The state and its reason go together (a reason implies its state): without joint
-- statistics the planner multiplies their selectivities, and the pages' estimated
-- counts ("about 33,400") come out a third of the truth.
CREATE STATISTICS IF NOT EXISTS claim_state_reason_stats (mcv, dependencies)
    ON state, state_reason FROM verifier_claim;

CREATE INDEX IF NOT EXISTS claim_queue_keyset ON verifier_claim
    (workspace_id, queue_rank, (-dependents), created_at, id) INCLUDE (state, state_reason)
    WHERE state IN {QUEUED};
"""

# Before the generated column's table rewrite: after it every row counts as written by
# this transaction, so an UPDATE would queue a deferred foreign-key check per row, and
# PostgreSQL refuses ALTER TABLE / CREATE INDEX with such events pending. And before
# the guard trigger, which would keep each row's old value.
BACKFILL = f"""
UPDATE verifier_claim c SET dependents = d.n
FROM (SELECT claim_id, count(*) AS n FROM (
        SELECT from_claim_id AS claim_id FROM verifier_claimrelation
        UNION ALL SELECT to_claim_id FROM verifier_claimrelation) e
      GROUP BY claim_id) d
WHERE c.id = d.claim_id AND c.state IN {QUEUED};
"""

REVERSE = (
    """
DROP INDEX IF EXISTS claim_queue_keyset;
DROP STATISTICS IF EXISTS claim_state_reason_stats;
DROP TRIGGER IF EXISTS verifier_claim_dependents_guard ON verifier_claim;
DROP FUNCTION IF EXISTS verifier_claim_dependents_guard();
"""
    + "".join(
        f"DROP TRIGGER IF EXISTS {table}_dependents_{op} ON {table};\n"
        for table in ("verifier_claimrelation",)
        for op in ("ins", "del", "upd")
    )
    + """
DROP FUNCTION IF EXISTS verifier_claimrelation_dependents();
"""
)


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0015_ingest_item"),
    ]

    operations = [
        migrations.AddField(
            model_name="claim",
            name="dependents",
            field=models.IntegerField(db_default=0, default=0, editable=False),
        ),
        migrations.RunSQL(sql=BACKFILL, reverse_sql=migrations.RunSQL.noop),
        migrations.AddField(
            model_name="claim",
            name="queue_rank",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Case(
                    models.When(
                        state_reason__in=["contradicted", "human_contradicted"],
                        then=models.Value(0),
                    ),
                    models.When(state_reason__in=["coverage_gap"], then=models.Value(1)),
                    models.When(state_reason__in=["stale_source"], then=models.Value(2)),
                    models.When(state_reason__in=["low_confidence"], then=models.Value(3)),
                    models.When(state_reason__in=["abstained"], then=models.Value(4)),
                    models.When(
                        state_reason__in=["self_consistency_disagreement"], then=models.Value(5)
                    ),
                    models.When(state_reason__in=["no_evidence"], then=models.Value(6)),
                    default=models.Value(7),
                ),
                output_field=models.SmallIntegerField(),
            ),
        ),
        migrations.AddIndex(
            model_name="claim",
            index=models.Index(fields=["workspace", "created_at", "id"], name="claim_ws_created"),
        ),
        migrations.RunSQL(sql=FORWARD, reverse_sql=REVERSE),
    ]
