"""A retrieve writes one ``TraceClaim`` per claim it considered (40 for 20 served). Their
two foreign keys were checked at every retrieve's commit, 80 lookups, and the check on
the claim took a KEY SHARE lock on each served claim row: WAL written for a read, and a
multixact whenever two retrieves served the same claim at once. At 1,000,000 claims the
trace statement plus its commit went from 2.5 to 1.75 ms and its WAL from 15.3 to 13.0 KB
without them. The ORM's CASCADE still removes the rows with a claim or a trace.

Forwards only drops the two constraints (no table scan). Backwards adds them again,
which validates every trace row under a lock that blocks the retrieves' trace writes
meanwhile."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0019_trace_indexes_covered"),
    ]

    operations = [
        migrations.AlterField(
            model_name="traceclaim",
            name="claim",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="traces",
                to="verifier.claim",
            ),
        ),
        migrations.AlterField(
            model_name="traceclaim",
            name="trace",
            field=models.ForeignKey(
                db_constraint=False,
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="considered",
                to="verifier.trace",
            ),
        ),
    ]
