"""One active webhook per target (URL, events, threshold): a duplicate registered before
delivered every event twice. Duplicates already stored are turned off first, the oldest
of each target kept (their rows and deliveries stay, as turning off keeps them)."""

from typing import Any

from django.db import migrations, models


def turn_off_duplicates(apps: Any, schema_editor: Any) -> None:
    Webhook = apps.get_model("verifier", "Webhook")
    seen: set[tuple[int, str, str, int]] = set()
    duplicates: list[int] = []
    for hook in Webhook.objects.filter(is_active=True).order_by("pk"):
        target = (hook.workspace_id, hook.url, repr(hook.events), hook.threshold)
        if target in seen:
            duplicates.append(hook.pk)
        seen.add(target)
    Webhook.objects.filter(pk__in=duplicates).update(is_active=False)


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0036_ingest_item_cancelled"),
    ]

    operations = [
        migrations.RunPython(turn_off_duplicates, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="webhook",
            constraint=models.UniqueConstraint(
                condition=models.Q(("is_active", True)),
                fields=("workspace", "url", "events", "threshold"),
                name="webhook_one_active_per_target",
            ),
        ),
    ]
