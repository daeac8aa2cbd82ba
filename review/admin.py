from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from review.models import ReviewLease, ReviewNote


@admin.register(ReviewLease)
class ReviewLeaseAdmin(admin.ModelAdmin):
    list_display = ("claim", "reviewer", "served_reason", "expires_at")


@admin.register(ReviewNote)
class ReviewNoteAdmin(admin.ModelAdmin):
    list_display = ("claim", "author", "at")
    readonly_fields = ("claim", "author", "text", "at")

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False  # append-only

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
