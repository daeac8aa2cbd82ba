"""A claim's latest verdict is read by ``-at, -id`` everywhere (the retrieve's claim
load, the review queue, the verdict columns), and ``verdict_claim_at`` (claim, -at) made
PostgreSQL fetch the claim's verdicts and sort them for every claim read (an Incremental
Sort per claim: 40 for one retrieve). ``verdict_claim_latest`` (claim, -at, -id) hands
the latest one over first; it replaces the old index, whose every use it covers.

Both built and dropped CONCURRENTLY: verdicts keep being written meanwhile (a few seconds
at 1,000,000 verdicts)."""

from django.contrib.postgres.operations import AddIndexConcurrently, RemoveIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("verifier", "0020_traceclaim_without_database_foreign_keys"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="verdict",
            index=models.Index(fields=["claim", "-at", "-id"], name="verdict_claim_latest"),
        ),
        RemoveIndexConcurrently(model_name="verdict", name="verdict_claim_at"),
    ]
