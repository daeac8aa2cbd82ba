"""A reviewer's decision that binds the span they selected records the binding it
replaced as the claim's evidence (``binding_before``, null when none was bound), so an
undo of the decision takes back the span too and binds that one again. Both columns are
added without a rewrite (a nullable column, a constant default): the append-only
trigger on verdicts sees no UPDATE."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0042_verdict_human_latest"),
    ]

    operations = [
        migrations.AddField(
            model_name="verdict",
            name="binding_before",
            field=models.ForeignKey(
                blank=True,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="verifier.evidencebinding",
            ),
        ),
        migrations.AddField(
            model_name="verdict",
            name="bound_selection",
            field=models.BooleanField(db_default=False, default=False),
        ),
    ]
