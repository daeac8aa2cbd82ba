"""The members page (admins): who is in the workspace with which role, giving an existing
user a role, changing one and taking a member out. The workspace always keeps an admin
(``verifier.services.workspaces``); a member's decisions and notes stay under their name."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from audit.confirmation import ask_first
from audit.paging import CONSOLE_PAGE_SIZE
from review.services import review_member_remove, review_member_role_change
from verifier.http import MemberRequest
from verifier.models import Membership, Role
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.selectors.workspaces import workspace_members
from verifier.services.workspaces import MemberInputError, member_add
from verifier.untrusted_input import identifier_problem
from verifier.vocabulary import api_message_in_words


class MemberAddForm(forms.Form):
    username = forms.CharField(max_length=150, label="User name")
    role = forms.ChoiceField(choices=Role.choices, initial=Role.REVIEWER, label="Role")

    def clean_username(self) -> str:
        """A user name is looked up, and said back in the error when there is no such
        user: one with a control or invisible character (a bidirectional override would
        show it reversed) is named for what it holds instead; no user's name holds one."""
        username: str = self.cleaned_data["username"]
        problem = identifier_problem(username)
        if problem is not None:
            raise forms.ValidationError(f"The user name {problem}; no user's name does.")
        return username


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=Role.choices, label="Role")


def _render(
    request: MemberRequest, *, form: MemberAddForm | None = None, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "audit/members.html",
        {
            "page": Paginator(
                workspace_members(workspace=request.workspace), CONSOLE_PAGE_SIZE
            ).get_page(request.GET.get("page")),
            "form": form or MemberAddForm(),
            "roles": Role.choices,
        },
        status=status,
    )


def _member(request: MemberRequest, membership_id: int) -> Membership | None:
    return (
        Membership.objects.select_related("user", "workspace")
        .filter(pk=membership_id, workspace=request.workspace)
        .first()
    )


def _gone(request: MemberRequest) -> HttpResponse:
    """A member taken out since the page was drawn (by another admin, or by this same
    form sent twice), or another workspace's (the same answer): the members page as it is
    now, saying so, rather than a "not found" page that blames the link."""
    messages.error(
        request,
        "No such member in this workspace: another admin may have taken them out since "
        "this page was drawn. Nothing changed; the list below is as it is now.",
    )
    return _render(request, status=404)


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
        form.add_error(error.details.get("field"), api_message_in_words(error.message))
        return _render(request, form=form, status=422)
    messages.success(
        request,
        f"Added {added.user.get_username()} to {request.workspace.name} as "
        f"{added.get_role_display()}.",
    )
    return redirect("audit:members")


@require_POST
@role_required(*ADMIN_ROLES)
def member_role(request: MemberRequest, membership_id: int) -> HttpResponse:
    membership = _member(request, membership_id)
    if membership is None:
        return _gone(request)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the roles.")
        return redirect("audit:members")
    role = form.cleaned_data["role"]
    if role == membership.role:
        # Nothing to change (the same role chosen, or another admin was quicker): said.
        messages.info(
            request,
            f"{membership.user.get_username()} is already {membership.get_role_display()}; "
            "nothing changed.",
        )
        return redirect("audit:members")
    if membership.user_id == request.user.pk:
        asked = ask_first(
            request,
            question="Change your own role? If it is no longer Admin, the admin pages (this "
            "one included) close to you at once, and only another admin can give the role back.",
            action="Change your own role",
            back=reverse("audit:members"),
        )
        if asked is not None:
            return asked
    try:
        review_member_role_change(membership=membership, role=role)
    except MemberInputError as error:
        messages.error(request, api_message_in_words(error.message))
        return redirect("audit:members")
    if membership.user_id == request.user.pk and membership.role not in ADMIN_ROLES:
        # Demoted yourself: the members page is no longer yours to open.
        messages.success(
            request,
            f"Your role is now {membership.get_role_display()}: the admin pages (members, "
            "rule sets, API keys, webhooks) are no longer open to you.",
        )
        return redirect("home")
    messages.success(
        request, f"{membership.user.get_username()}’s role is now {membership.get_role_display()}."
    )
    return redirect("audit:members")


@require_POST
@role_required(*ADMIN_ROLES)
def member_out(request: MemberRequest, membership_id: int) -> HttpResponse:
    membership = _member(request, membership_id)
    if membership is None:
        return _gone(request)
    yourself = membership.user_id == request.user.pk
    asked = ask_first(
        request,
        # the same words as the page's data-confirm (templates/audit/members.html)
        question=(
            f"Take yourself out of {request.workspace.name}? You lose access to it at once "
            "(this page included), and only another admin can add you back. Your decisions "
            "and notes stay."
            if yourself
            else f"Take {membership.user.get_username()} out of {request.workspace.name}? "
            "Their decisions and notes stay."
        ),
        action="Take yourself out" if yourself else f"Take {membership.user.get_username()} out",
        back=reverse("audit:members"),
    )
    if asked is not None:
        return asked
    try:
        review_member_remove(membership=membership)
    except MemberInputError as error:
        messages.error(request, api_message_in_words(error.message))
        return redirect("audit:members")
    if yourself:
        messages.success(
            request,
            f"You are no longer a member of {request.workspace.name}; your decisions stay.",
        )
        return redirect("home")
    messages.success(
        request,
        f"{membership.user.get_username()} is no longer a member; their decisions stay.",
    )
    return redirect("audit:members")
