from django.contrib import admin

from verifier import models


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only history: viewable in the admin, never editable."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(models.Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ("slug", "name", "created_at")
    search_fields = ("slug", "name")


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "workspace", "role", "blind_review")
    list_filter = ("role", "workspace")


@admin.register(models.ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("name", "workspace", "prefix", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("prefix", "key_hash", "created_at", "last_used_at")


class SourceVersionInline(admin.TabularInline):
    model = models.SourceVersion
    fields = ("number", "sha256", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(models.Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ("ref", "title", "domain_pack", "workspace")
    list_filter = ("workspace", "domain_pack")
    search_fields = ("ref", "title")
    inlines = [SourceVersionInline]


@admin.register(models.SourceVersion)
class SourceVersionAdmin(ReadOnlyAdmin):
    list_display = ("source", "number", "sha256", "created_at")


@admin.register(models.Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ("public_id", "state", "state_reason", "origin", "source", "published")
    list_filter = ("state", "origin", "published", "workspace")
    search_fields = ("public_id", "text")
    readonly_fields = ("state", "state_reason", "public_id", "embedding")
    raw_id_fields = ("source", "ingest_job", "duplicate_of", "created_by")


@admin.register(models.EvidenceBinding)
class EvidenceBindingAdmin(ReadOnlyAdmin):
    list_display = ("claim", "match", "start", "end", "source_hash", "is_active", "created_at")
    list_filter = ("match", "bound_by", "is_active")


@admin.register(models.Verdict)
class VerdictAdmin(ReadOnlyAdmin):
    list_display = ("claim", "label", "confidence", "judge_model", "prompt_version", "at")
    list_filter = ("label", "judge_family")


@admin.register(models.StateEvent)
class StateEventAdmin(ReadOnlyAdmin):
    list_display = ("claim", "from_state", "to_state", "reason", "cause", "at")


@admin.register(models.IngestJob)
class IngestJobAdmin(admin.ModelAdmin):
    list_display = ("id", "workspace", "status", "stage", "created_at", "finished_at")
    list_filter = ("status",)


@admin.register(models.RuleSet)
class RuleSetAdmin(ReadOnlyAdmin):
    list_display = ("name", "version", "workspace", "created_at")


@admin.register(models.RuleSetActivation)
class RuleSetActivationAdmin(ReadOnlyAdmin):
    list_display = ("workspace", "domain_pack", "rule_set", "policy", "activated_at")


@admin.register(models.Trace)
class TraceAdmin(ReadOnlyAdmin):
    list_display = ("trace_id", "workspace", "operation", "created_at")


@admin.register(models.Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("url", "workspace", "threshold", "is_active")


@admin.register(models.ValidatorRun)
class ValidatorRunAdmin(ReadOnlyAdmin):
    list_display = ("fixture", "judge_model", "runs", "created_at")
