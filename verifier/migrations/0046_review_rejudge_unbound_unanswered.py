"""A send-back job counts apart the claims the judge was not asked about (no span bound)
and those it gave no usable answer for, beside those it answered. Two columns with a
constant default: no table rewrite."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0045_memory_unit_vectors"),
    ]

    operations = [
        migrations.AddField(
            model_name="reviewrejudgejob",
            name="unanswered",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Claims the judge gave no usable answer for (unreachable, malformed, omitted).",
            ),
        ),
        migrations.AddField(
            model_name="reviewrejudgejob",
            name="unbound",
            field=models.PositiveIntegerField(
                default=0, help_text="Claims with no span bound: the judge was not asked."
            ),
        ),
        migrations.AlterField(
            model_name="reviewrejudgejob",
            name="judged",
            field=models.PositiveIntegerField(default=0, help_text="Claims the judge answered."),
        ),
    ]
