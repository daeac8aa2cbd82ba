"""Stored transcripts keep their sentence units' vectors (``MemoryUnitVector``): a check
reads them instead of embedding the transcript again. A new table."""

import django.db.models.deletion
import pgvector.django.vector
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0044_review_rejudge_job"),
    ]

    operations = [
        migrations.CreateModel(
            name="MemoryUnitVector",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("embedding_model", models.CharField(max_length=300)),
                ("start", models.PositiveIntegerField()),
                ("end", models.PositiveIntegerField()),
                ("embedding", pgvector.django.vector.VectorField(dimensions=384)),
                (
                    "transcript",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="unit_vectors",
                        to="verifier.memorytranscript",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("transcript", "embedding_model", "start", "end"),
                        name="memoryunitvector_unique_unit",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("start__gte", 0), ("start__lt", models.F("end"))),
                        name="memoryunitvector_offsets_ordered",
                    ),
                ],
            },
        ),
    ]
