"""The members page (admins): who is in the workspace with which role, giving an existing
user a role, changing one and taking a member out. The workspace always keeps an admin
(``verifier.services.workspaces``); a member's decisions and notes stay under their name."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from verifier.http import MemberRequest
from verifier.models import Membership, Role
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.selectors.workspaces import workspace_members
from verifier.services.workspaces import (
    MemberInputError,
    member_add,
    member_remove,
    member_role_change,
)


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REVIEWER, label="Role")


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices, label="Role")


def _render(
    request: MemberRequest, *, form: MemberAddForm | None = None, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "audit/members.html",
        {
            "members": workspace_members(workspace=request.workspace),
            "form": form or MemberAddForm(),
            "roles": Role.choices,
        },
        status=status,
    )


def _member(request: MemberRequest, membership_id: int) -> Membership:
    return get_object_or_404(
        Membership.objects.select_related("user", "workspace"),
        pk=membership_id,
        workspace=request.workspace,
    )


@require_GET
@role_required(*ADMIN_ROLES)
def members(request: MemberRequest) -> HttpResponse:
    return _render(request)


@require_POST
@role_required(*ADMIN_ROLES)
def member_new(request: MemberRequest) -> HttpResponse:
    form = MemberAddForm(request.POST)
    if not form.is_valid():
        return _render(request, form=form, status=422)
    try:
        added = member_add(workspace=request.workspace, **form.cleaned_data)
    except MemberInputError as error:
        form.add_error(error.details.get("field"), error.message)
        return _render(request, form=form, status=422)
    messages.success(request, f"{added.user.get_username()} is now a {added.get_role_display()}.")
    return redirect("audit:members")


@require_POST
@role_required(*ADMIN_ROLES)
def member_role(request: MemberRequest, membership_id: int) -> HttpResponse:
    membership = _member(request, membership_id)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the roles.")
        return redirect("audit:members")
    try:
        member_role_change(membership=membership, role=form.cleaned_data["role"])
    except MemberInputError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, f"{membership.user.get_username()} is now a {membership.get_role_display()}."
        )
    return redirect("audit:members")


@require_POST
@role_required(*ADMIN_ROLES)
def member_out(request: MemberRequest, membership_id: int) -> HttpResponse:
    membership = _member(request, membership_id)
    try:
        member_remove(membership=membership)
    except MemberInputError as error:
        messages.error(request, error.message)
        return redirect("audit:members")
    messages.success(
        request,
        f"{membership.user.get_username()} is no longer a member; their decisions stay.",
    )
    if membership.user_id == request.user.pk:
        return redirect("home")
    return redirect("audit:members")
