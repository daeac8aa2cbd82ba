"""``Claim.queue_rank`` becomes a plain column the state writer fills, instead of a stored
generated column built from the queue's risk order (migration 0016).

The generated column froze the order into the schema: adding or moving a queue reason
meant a hand-written migration (Django refuses to alter a generated column, and the
keyset index built on it in raw SQL had to be rebuilt), and a forgotten one silently
emptied the new reason's filter. Now ``verifier.services.claim_state`` stores the rank
beside the reason on every state write, and ``migrate`` re-ranks stored claims whose
rank moved (``claims_queue_rank_sync``), so the order lives in ``verifier.states`` alone.

Here: the index on the column is dropped, the generated column replaced by a plain one,
the existing rows ranked by the order as it stands at this migration (written out
below, as 0016 did; later changes are the sync's), and the same index rebuilt. Dropping
a column and adding one with a constant default rewrite nothing, so the rows' ranks are
one UPDATE of the queued reasons' rows before the index is built.
"""

from django.db import migrations, models

import verifier.state_policy

QUEUED = "('unverified', 'contradicted', 'inferred')"

KEYSET_INDEX = f"""
CREATE INDEX IF NOT EXISTS claim_queue_keyset ON verifier_claim
    (workspace_id, queue_rank, (-dependents), created_at, id) INCLUDE (state, state_reason)
    WHERE state IN {QUEUED};
"""
DROP_KEYSET_INDEX = "DROP INDEX IF EXISTS claim_queue_keyset;"

# The order of verifier.states.QUEUE_REASON_RISK_ORDER at this migration (with the
# reviewer's contradiction ranked as a contradiction); every other reason ranks 100.
RANKS = {
    "contradicted": 0,
    "human_contradicted": 0,
    "coverage_gap": 1,
    "stale_source": 2,
    "low_confidence": 3,
    "abstained": 4,
    "self_consistency_disagreement": 5,
    "no_evidence": 6,
}
RANK_ROWS = (
    "UPDATE verifier_claim SET queue_rank = CASE state_reason "
    + " ".join(f"WHEN '{reason}' THEN {rank}" for reason, rank in RANKS.items())
    + " END WHERE state_reason IN ("
    + ", ".join(f"'{reason}'" for reason in RANKS)
    + ");"
)


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0027_verdict_withdrawn"),
    ]

    operations = [
        migrations.RunSQL(sql=DROP_KEYSET_INDEX, reverse_sql=KEYSET_INDEX),
        migrations.RemoveField(model_name="claim", name="queue_rank"),
        migrations.AddField(
            model_name="claim",
            name="queue_rank",
            field=models.SmallIntegerField(
                default=verifier.state_policy.queue_rank_default, editable=False
            ),
        ),
        migrations.RunSQL(sql=RANK_ROWS, reverse_sql=migrations.RunSQL.noop),
        migrations.RunSQL(sql=KEYSET_INDEX, reverse_sql=DROP_KEYSET_INDEX),
    ]
