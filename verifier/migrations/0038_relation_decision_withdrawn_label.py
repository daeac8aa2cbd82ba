"""A relation decision's label may be ``withdrawn`` (nine characters): a reviewer's undo
appends one to the append-only log (``relation_review_undo``). Widening a varchar
rewrites nothing."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0037_webhook_one_active_per_target"),
    ]

    operations = [
        migrations.AlterField(
            model_name="relationdecision",
            name="label",
            field=models.CharField(max_length=12),
        ),
    ]
