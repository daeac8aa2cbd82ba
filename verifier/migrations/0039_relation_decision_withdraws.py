"""A ``withdrawn`` relation decision names the decision it takes back (``withdraws``),
and a reviewer's decision keeps the relation's verification and level it replaced
(``replaced_verification``, ``replaced_level``, what an undo puts back).

Before, a withdrawal was paired with its decision by the order of the relation's log:
once the relation was deleted (its log rows' ``relation`` set to null) the pair came
apart and the withdrawn decision counted again in the statistics and in calibration.

Data: each existing ``withdrawn`` row gets its ``withdraws`` link: the decision its note
names ("undo: withdraws decision N (label)"), else the row just before it in its
relation's log. Nothing else is changed; the new columns of other rows stay empty (an
undo of a decision logged before this falls back to the last automatic decision)."""

import re
from typing import Any

from django.db import migrations, models

NOTE = re.compile(r"withdraws decision (\d+)")


def link_withdrawals(apps: Any, schema_editor: Any) -> None:
    decision = apps.get_model("verifier", "RelationDecision")
    taken = set(decision.objects.exclude(withdraws=None).values_list("withdraws_id", flat=True))
    for row in decision.objects.filter(label="withdrawn", withdraws=None).order_by("pk"):
        target = None
        match = NOTE.search(row.note or "")
        if match is not None:
            target = decision.objects.filter(
                pk=int(match.group(1)), workspace_id=row.workspace_id
            ).first()
        if target is None and row.relation_id is not None:
            target = (
                decision.objects.filter(relation_id=row.relation_id, pk__lt=row.pk)
                .order_by("-pk")
                .first()
            )
        if target is None or target.pk in taken or target.label == "withdrawn":
            continue
        decision.objects.filter(pk=row.pk).update(withdraws=target)
        taken.add(target.pk)


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0038_relation_decision_withdrawn_label"),
    ]

    operations = [
        migrations.AddField(
            model_name="relationdecision",
            name="withdraws",
            field=models.OneToOneField(
                blank=True,
                null=True,
                on_delete=models.deletion.CASCADE,
                related_name="withdrawal",
                to="verifier.relationdecision",
            ),
        ),
        migrations.AddField(
            model_name="relationdecision",
            name="replaced_verification",
            field=models.CharField(blank=True, max_length=10),
        ),
        migrations.AddField(
            model_name="relationdecision",
            name="replaced_level",
            field=models.CharField(blank=True, max_length=20),
        ),
        migrations.RunPython(link_withdrawals, migrations.RunPython.noop),
    ]
