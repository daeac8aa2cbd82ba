"""Reviewer calibrators (issue 41): an immutable, versioned row per fit, per workspace and
judge model, and the verdicts a calibrator gave pointing at it.

Only the status columns of a calibrator may change (proposed → active → retired, with
who and when); a trigger rejects an UPDATE that touches anything else.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


IMMUTABLE = """
CREATE OR REPLACE FUNCTION verifier_judgecalibrator_immutable() RETURNS trigger AS $$
DECLARE
    moving CONSTANT text[] := ARRAY['status', 'activated_at', 'activated_by_id',
                                    'retired_at', 'retired_by_id'];
BEGIN
    IF (to_jsonb(NEW) - moving) IS DISTINCT FROM (to_jsonb(OLD) - moving) THEN
        RAISE EXCEPTION 'spanproof: a calibrator is immutable; only its status may change'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER verifier_judgecalibrator_immutable BEFORE UPDATE ON verifier_judgecalibrator
    FOR EACH ROW EXECUTE FUNCTION verifier_judgecalibrator_immutable();
"""
MUTABLE = """
DROP TRIGGER IF EXISTS verifier_judgecalibrator_immutable ON verifier_judgecalibrator;
DROP FUNCTION IF EXISTS verifier_judgecalibrator_immutable();
"""


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0028_claim_queue_rank_plain"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="JudgeCalibrator",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "judge_model",
                    models.CharField(help_text="The judge model it calibrates.", max_length=200),
                ),
                (
                    "version",
                    models.PositiveIntegerField(help_text="1, 2, … per workspace and judge model."),
                ),
                (
                    "params",
                    models.JSONField(
                        help_text="The fitted calibrator (verifier.judges.reviewer_calibrator.Calibrator)."
                    ),
                ),
                (
                    "training_size",
                    models.PositiveIntegerField(help_text="Human decisions it learned from."),
                ),
                ("supported_decisions", models.PositiveIntegerField()),
                ("contradicted_decisions", models.PositiveIntegerField()),
                (
                    "floor",
                    models.FloatField(
                        help_text="The precision floor its thresholds were chosen for."
                    ),
                ),
                ("cv_supported_precision", models.FloatField(blank=True, null=True)),
                ("cv_supported_recall", models.FloatField(blank=True, null=True)),
                ("cv_contradicted_precision", models.FloatField(blank=True, null=True)),
                ("cv_contradicted_recall", models.FloatField(blank=True, null=True)),
                ("cv_roc_auc", models.FloatField()),
                (
                    "cv_abstention",
                    models.FloatField(
                        blank=True,
                        help_text="Judge + calibrator: share of the decisions undecided.",
                        null=True,
                    ),
                ),
                ("cv_entailed_precision", models.FloatField(blank=True, null=True)),
                (
                    "judge_abstention",
                    models.FloatField(
                        blank=True, help_text="The judge alone, on the same decisions.", null=True
                    ),
                ),
                ("judge_entailed_precision", models.FloatField(blank=True, null=True)),
                (
                    "decisions_through",
                    models.BigIntegerField(
                        default=0, help_text="The last human verdict (id) it learned from."
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("proposed", "Proposed"),
                            ("active", "Active"),
                            ("retired", "Retired"),
                        ],
                        default="proposed",
                        max_length=16,
                    ),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("activated_at", models.DateTimeField(blank=True, null=True)),
                ("retired_at", models.DateTimeField(blank=True, null=True)),
                (
                    "activated_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        help_text="None when the scheduled fit proposed it.",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "retired_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "workspace",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="judge_calibrators",
                        to="verifier.workspace",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
            },
        ),
        migrations.AddField(
            model_name="verdict",
            name="calibrator",
            field=models.ForeignKey(
                blank=True,
                help_text="Set when the workspace's reviewer calibrator gave this answer (judge_model is the judge it calibrates).",
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="verdicts",
                to="verifier.judgecalibrator",
            ),
        ),
        migrations.AddConstraint(
            model_name="judgecalibrator",
            constraint=models.UniqueConstraint(
                fields=("workspace", "judge_model", "version"),
                name="judgecalibrator_unique_version",
            ),
        ),
        migrations.AddConstraint(
            model_name="judgecalibrator",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status", "active")),
                fields=("workspace", "judge_model"),
                name="judgecalibrator_one_active",
            ),
        ),
        migrations.AddConstraint(
            model_name="judgecalibrator",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["proposed", "active", "retired"])),
                name="judgecalibrator_status_valid",
            ),
        ),
        migrations.RunSQL(sql=IMMUTABLE, reverse_sql=MUTABLE),
    ]
