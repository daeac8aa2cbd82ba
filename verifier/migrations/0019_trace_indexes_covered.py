"""Every retrieve writes a trace and one trace row per claim it considered (40 for 20
served), each paying every index of its table. Two of those indexes only repeat the
leading column of another: ``verifier_trace(workspace_id)`` of ``trace_ws_created``
(workspace, -created_at, -id) and ``verifier_traceclaim(trace_id)`` of
``traceclaim_unique`` (trace, claim); they go.

Only the indexes are dropped, CONCURRENTLY (retrieves keep writing meanwhile); the
foreign keys stay as they are. ``AlterField`` alone would drop and re-add each foreign
key, re-checking every trace row under a lock that blocks those writes."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("verifier", "0018_source_version_chunks"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="trace",
                    name="workspace",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="traces",
                        to="verifier.workspace",
                    ),
                ),
                migrations.AlterField(
                    model_name="traceclaim",
                    name="trace",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="considered",
                        to="verifier.trace",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    "DROP INDEX CONCURRENTLY IF EXISTS verifier_trace_workspace_id_bcdecfe0;",
                    "CREATE INDEX CONCURRENTLY IF NOT EXISTS verifier_trace_workspace_id_bcdecfe0 "
                    "ON verifier_trace (workspace_id);",
                ),
                migrations.RunSQL(
                    "DROP INDEX CONCURRENTLY IF EXISTS verifier_traceclaim_trace_id_761dae41;",
                    "CREATE INDEX CONCURRENTLY IF NOT EXISTS verifier_traceclaim_trace_id_761dae41 "
                    "ON verifier_traceclaim (trace_id);",
                ),
            ],
        ),
    ]
