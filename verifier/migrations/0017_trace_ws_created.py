"""The audit trace list reads the workspace's traces newest first in keyset pages: one
range of ``trace_ws_created`` per page. Every retrieve writes a trace, so the table is
the largest that grows on the serving path: the index is built CONCURRENTLY (retrieves
keep writing meanwhile), which needs a migration outside a transaction."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("verifier", "0016_claim_queue_keyset"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="trace",
            index=models.Index(fields=["workspace", "-created_at", "-id"], name="trace_ws_created"),
        ),
    ]
