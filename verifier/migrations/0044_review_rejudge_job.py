"""The review queue's bulk send-backs to the judge, run in the background
(``ReviewRejudgeJob``, ``review.services.review_rejudge_job_run``): a new table."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("verifier", "0043_verdict_binding_before"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ReviewRejudgeJob",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("heartbeat_at", models.DateTimeField(blank=True, null=True)),
                ("runner", models.CharField(blank=True, max_length=64)),
                (
                    "attempts",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Times the watchdog re-enqueued the job after its worker went silent.",
                    ),
                ),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("succeeded", "Succeeded"),
                            ("failed", "Failed"),
                        ],
                        default="queued",
                        max_length=16,
                    ),
                ),
                (
                    "claim_ids",
                    models.JSONField(default=list, help_text="The claims (ids), in id order."),
                ),
                (
                    "seen",
                    models.JSONField(
                        blank=True,
                        help_text="Public id -> the item version the reviewer confirmed.",
                        null=True,
                    ),
                ),
                ("total", models.PositiveIntegerField(default=0, help_text="Claims sent back.")),
                ("done", models.PositiveIntegerField(default=0, help_text="Claims read so far.")),
                (
                    "done_through",
                    models.BigIntegerField(default=0, help_text="The last claim (id) finished."),
                ),
                (
                    "judged",
                    models.PositiveIntegerField(default=0, help_text="Claims the judge read."),
                ),
                (
                    "moved",
                    models.PositiveIntegerField(default=0, help_text="Claims whose state changed."),
                ),
                (
                    "skipped",
                    models.JSONField(default=list, help_text="The claims left alone, and why."),
                ),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        help_text="The reviewer who sent the claims back.",
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
                        related_name="review_rejudge_jobs",
                        to="verifier.workspace",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
                "indexes": [
                    models.Index(fields=["workspace", "-id"], name="verifier_re_workspa_018736_idx")
                ],
                "constraints": [
                    models.CheckConstraint(
                        condition=models.Q(
                            ("status__in", ["queued", "running", "succeeded", "failed"])
                        ),
                        name="reviewrejudgejob_status_valid",
                    )
                ],
            },
        ),
    ]
