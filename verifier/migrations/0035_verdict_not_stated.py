# A reviewer's "Not stated by the source" decision appends a "not_stated" verdict: the
# label joins the allowed ones. No row changes.

from django.db import migrations, models

LABELS = [
    ("entailed", "Entailed"),
    ("contradicted", "Contradicted"),
    ("abstained", "Abstained"),
    ("coverage_gap", "Coverage gap"),
    ("withdrawn", "Withdrawn"),
    ("not_stated", "Not stated"),
]


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0034_binding_occurrences"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="verdict",
            name="verdict_label_valid",
        ),
        migrations.AlterField(
            model_name="verdict",
            name="label",
            field=models.CharField(choices=LABELS, max_length=16),
        ),
        migrations.AddConstraint(
            model_name="verdict",
            constraint=models.CheckConstraint(
                condition=models.Q(("label__in", [code for code, _ in LABELS])),
                name="verdict_label_valid",
            ),
        ),
    ]
