"""A covering index for the review queue over verifier_claim.

The queue filters claims by workspace and state, tallies them by state_reason for the
reason chips, and orders them by a risk rank computed from state_reason, then by
dependents, then by age. With ``created_at``, ``id`` and the source / ingest-job keys
included, the tally and the ordering step read only this index (index-only scans),
never the wide claim rows.
Partial on the states the queue can show, so it stays a third of the table's size.
"""

from django.db import migrations

INDEX = "review_claim_queue_idx"


class Migration(migrations.Migration):
    dependencies = [
        ("review", "0002_review_notes"),
        ("verifier", "0001_initial"),
    ]

    operations = [
        migrations.RunSQL(
            sql=(
                f"CREATE INDEX IF NOT EXISTS {INDEX} ON verifier_claim "
                "(workspace_id, state, state_reason) INCLUDE (created_at, id, source_id, ingest_job_id) "
                "WHERE state IN ('unverified', 'contradicted', 'inferred');"
            ),
            reverse_sql=f"DROP INDEX IF EXISTS {INDEX};",
        ),
    ]
