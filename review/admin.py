from typing import Any

from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from review.models import ReviewLease, ReviewNote
from review.services import review_member_move, review_member_remove, review_member_role_change
from verifier.admin import MembershipAdmin
from verifier.models import Membership
from verifier.services.workspaces import MemberInputError


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


# The Membership admin's saves and deletes go through the Members page's services: a role
# lowered to one that cannot decide, a member removed, or a row moved to another workspace
# or user (the member it was taken out) gives back their review leases in the same
# transaction, and the workspace keeps an admin. ``verifier`` cannot import
# ``review``, so the admin registered there is replaced here.
admin.site.unregister(Membership)


@admin.register(Membership)
class ReviewMembershipAdmin(MembershipAdmin):
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change and {"workspace", "user"} & set(form.changed_data):
            review_member_move(membership=obj)  # saves it
            return
        if change and "role" in form.changed_data:
            review_member_role_change(membership=obj, role=obj.role)
        super().save_model(request, obj, form, change)

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        review_member_remove(membership=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Membership]) -> None:
        with transaction.atomic():
            for membership in queryset.select_related("user", "workspace"):
                review_member_remove(membership=membership)

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except MemberInputError as exc:
            return self._refused(request, exc)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        try:
            return super().delete_view(request, object_id, extra_context)
        except MemberInputError as exc:
            return self._refused(request, exc)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        try:
            with transaction.atomic():  # a refused bulk delete logs no deletion either
                return super().changelist_view(request, extra_context)
        except MemberInputError as exc:  # the bulk delete action
            return self._refused(request, exc)

    def _refused(self, request: HttpRequest, exc: MemberInputError) -> HttpResponse:
        """Nothing changed (the view's transaction rolled back): the page again, saying why."""
        self.message_user(request, exc.message, messages.ERROR)
        return HttpResponseRedirect(request.get_full_path())
