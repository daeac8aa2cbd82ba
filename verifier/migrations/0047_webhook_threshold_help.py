"""The webhook threshold's help text names the G2 gate too (no SQL)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0046_review_rejudge_unbound_unanswered"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhook",
            name="threshold",
            field=models.PositiveSmallIntegerField(
                default=90,
                help_text="job.quality_below_threshold fires when the trust score is below, or the job failed the G2 gate.",
            ),
        ),
    ]
