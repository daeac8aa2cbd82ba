from django.urls import path

from audit import (
    activity_views,
    api_key_views,
    calibrator_views,
    claim_views,
    member_views,
    pack_views,
    quality_views,
    rule_set_views,
    source_views,
    trace_views,
    webhook_views,
)

app_name = "audit"

urlpatterns = [
    path("claims/", claim_views.claim_list, name="claim-list"),
    path("claims/export.jsonl", claim_views.claim_export_jsonl, name="claim-export-jsonl"),
    path("claims/export.csv", claim_views.claim_export_csv, name="claim-export-csv"),
    path("claims/<str:public_id>/", claim_views.claim_detail, name="claim-detail"),
    path("sources/", source_views.source_list, name="source-list"),
    path("sources/<int:source_id>/", source_views.source_detail, name="source-detail"),
    path(
        "sources/<int:source_id>/v/<str:sha256>", source_views.source_version, name="source-version"
    ),
    path("sources/<int:source_id>/diff/", source_views.source_diff, name="source-diff"),
    path("traces/", trace_views.trace_list, name="trace-list"),
    path("activity/", activity_views.activity, name="activity"),
    path("traces/<uuid:trace_id>/", trace_views.trace_detail, name="trace-detail"),
    path("pack/", pack_views.pack_create, name="pack-create"),
    path("pack/jobs/<int:job_id>/", pack_views.pack_job, name="pack-job"),
    path("pack/jobs/<int:job_id>/download", pack_views.pack_download, name="pack-download"),
    path("quality/", quality_views.quality, name="quality"),
    path("rules/", rule_set_views.rules, name="rules"),
    path("rules/new/", rule_set_views.rule_set_new, name="rule-set-new"),
    path("rules/diff/", rule_set_views.rule_set_diff, name="rule-set-diff"),
    path(
        "rules/builtin/activate/",
        rule_set_views.rule_set_builtin_activate,
        name="rule-set-builtin-activate",
    ),
    path("rules/<int:pk>/", rule_set_views.rule_set_detail, name="rule-set-detail"),
    path("rules/<int:pk>/activate/", rule_set_views.rule_set_activate, name="rule-set-activate"),
    path("api-keys/", api_key_views.api_keys, name="api-keys"),
    path("api-keys/new/", api_key_views.api_key_new, name="api-key-new"),
    path("api-keys/<int:key_id>/revoke/", api_key_views.api_key_revoke_view, name="api-key-revoke"),
    path("members/", member_views.members, name="members"),
    path("members/new/", member_views.member_new, name="member-new"),
    path("members/<int:membership_id>/role/", member_views.member_role, name="member-role"),
    path("members/<int:membership_id>/remove/", member_views.member_out, name="member-remove"),
    path("webhooks/", webhook_views.webhooks, name="webhooks"),
    path("webhooks/new/", webhook_views.webhook_new, name="webhook-new"),
    path("webhooks/<int:webhook_id>/off/", webhook_views.webhook_off, name="webhook-off"),
    path("calibrators/", calibrator_views.calibrators, name="calibrators"),
    path("calibrators/<int:pk>/", calibrator_views.calibrator_detail, name="calibrator-detail"),
    path(
        "calibrators/<int:pk>/activate/",
        calibrator_views.calibrator_activate,
        name="calibrator-activate",
    ),
    path(
        "calibrators/changes/<int:job_id>/", calibrator_views.calibrator_job, name="calibrator-job"
    ),
    path(
        "calibrators/<int:pk>/deactivate/",
        calibrator_views.calibrator_deactivate,
        name="calibrator-deactivate",
    ),
]
