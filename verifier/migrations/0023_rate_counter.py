"""The API's rate-limit counters in the database (``RateCounter``): shared by every web
process, where a per-process memory cache let two gunicorn workers allow twice the
limit. Unlogged: a counter is worth nothing after a crash, and its writes (one per API
request and limit) then skip the write-ahead log."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0022_dependents_guard_trusts_the_owner"),
    ]

    operations = [
        migrations.CreateModel(
            name="RateCounter",
            fields=[
                ("key", models.CharField(max_length=200, primary_key=True, serialize=False)),
                ("window", models.BigIntegerField()),
                ("hits", models.IntegerField()),
            ],
        ),
        migrations.RunSQL(
            sql="ALTER TABLE verifier_ratecounter SET UNLOGGED",
            reverse_sql="ALTER TABLE verifier_ratecounter SET LOGGED",
        ),
    ]
