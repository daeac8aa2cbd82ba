from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from verifier import models, vocabulary
from verifier.http import SignedInRequest
from verifier.services.claim_state import claim_exclude
from verifier.services.sources import claim_restore_rebind


class ReadOnlyAdmin(admin.ModelAdmin):
    """Append-only history: viewable in the admin, never editable."""

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class NoDeleteWithHistoryAdmin(admin.ModelAdmin):
    """Rows that own append-only history (claims, verdicts, state events, versions) are
    never deleted from the admin: the database triggers would refuse half-way."""

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


@admin.register(models.Workspace)
class WorkspaceAdmin(NoDeleteWithHistoryAdmin):
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
class SourceAdmin(NoDeleteWithHistoryAdmin):
    list_display = ("ref", "title", "domain_pack", "workspace")
    list_filter = ("workspace", "domain_pack")
    search_fields = ("ref", "title")
    inlines = [SourceVersionInline]


@admin.register(models.SourceVersion)
class SourceVersionAdmin(ReadOnlyAdmin):
    list_display = ("source", "number", "sha256", "created_at")


@admin.register(models.Claim)
class ClaimAdmin(NoDeleteWithHistoryAdmin):
    """Claims are read here; their state changes only through the one state writer.

    Every field is read-only (text, source, quote, exclusion and publication are all
    inputs of the claim's state, and editing them here would leave the state stale);
    the exclude and restore actions call the same services as the console."""

    list_display = ("public_id", "state", "state_reason", "origin", "source", "published")
    list_filter = ("state", "origin", "published", "workspace")
    search_fields = ("public_id", "text")
    actions = ["exclude_claims", "restore_claims"]

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    @admin.action(description="Exclude the selected claims (reversible)")
    def exclude_claims(self, request: SignedInRequest, queryset: QuerySet[models.Claim]) -> None:
        reason = f"Excluded in the admin by {request.user.get_username()}"
        with transaction.atomic():
            claims = list(queryset.select_for_update().exclude(state="excluded"))
            for claim in claims:
                claim_exclude(claim=claim, reason=reason, actor=request.user)
        self.message_user(
            request, f"Excluded {vocabulary.counted(len(claims), 'claim')}.", messages.SUCCESS
        )

    @admin.action(description="Restore the selected excluded claims")
    def restore_claims(self, request: SignedInRequest, queryset: QuerySet[models.Claim]) -> None:
        with transaction.atomic():
            claims = list(queryset.select_for_update().filter(state="excluded"))
            for claim in claims:
                claim_restore_rebind(claim=claim, actor=request.user)
        self.message_user(
            request, f"Restored {vocabulary.counted(len(claims), 'claim')}.", messages.SUCCESS
        )


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
