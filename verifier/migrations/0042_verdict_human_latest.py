"""The Decisions page reads a day's decisions of people (``reviewer`` set), newest first;
with only ``verdict_claim_latest`` that meant reading every verdict of the workspace's
claims, the judges' too, on every page. ``verdict_human_latest`` holds the reviewers'
verdicts alone by (-at, -id). Built CONCURRENTLY: verdicts keep being written meanwhile."""

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("verifier", "0041_source_ref_nfc"),
    ]

    operations = [
        AddIndexConcurrently(
            model_name="verdict",
            index=models.Index(
                condition=models.Q(("reviewer__isnull", False)),
                fields=["-at", "-id"],
                name="verdict_human_latest",
            ),
        ),
    ]
