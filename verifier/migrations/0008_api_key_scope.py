"""API keys carry a scope (read / write / admin).

Keys that exist before this migration could do everything, webhooks included, so they get
``admin`` and keep working unchanged; keys made afterwards default to ``write``.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0007_memory_checks"),
    ]

    operations = [
        migrations.AddField(
            model_name="apikey",
            name="scope",
            field=models.CharField(
                choices=[("read", "Read"), ("write", "Write"), ("admin", "Admin")],
                default="admin",
                max_length=8,
            ),
        ),
        migrations.AlterField(
            model_name="apikey",
            name="scope",
            field=models.CharField(
                choices=[("read", "Read"), ("write", "Write"), ("admin", "Admin")],
                default="write",
                max_length=8,
            ),
        ),
        migrations.AddConstraint(
            model_name="apikey",
            constraint=models.CheckConstraint(
                condition=models.Q(scope__in=["read", "write", "admin"]),
                name="api_key_scope_valid",
            ),
        ),
    ]
