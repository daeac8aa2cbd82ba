from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from verifier.errors import ApplicationError
from verifier.models import (
    ActivityAction,
    ApiKey,
    ApiScope,
    Membership,
    Role,
    Workspace,
    generate_api_key,
    hash_api_key,
)
from verifier.services.activity import activity_record
from verifier.untrusted_input import identifier_refusal


class ApiKeyInputError(ApplicationError):
    pass


@dataclass(frozen=True)
class CreatedApiKey:
    api_key: ApiKey
    raw_key: str  # shown once, never stored


def workspace_create(*, slug: str, name: str) -> Workspace:
    workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={"name": name})
    return workspace


def membership_set(*, workspace: Workspace, user: User, role: str) -> Membership:
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}; expected one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(
        workspace=workspace, user=user, defaults={"role": role}
    )
    return membership


class MemberInputError(ApplicationError):
    """A change of the workspace's members that is refused (a form error)."""


def _keep_an_admin(membership: Membership) -> None:
    """Refuse (``last_admin``) a change that would leave the workspace without an admin
    once ``membership`` is no admin; the members' rows are locked first, so two admins
    demoting each other at once cannot both succeed. They are locked in id order: two
    changes at once in one workspace, each locking them in the order its scan met them,
    could each hold a row the other waits for (a deadlock)."""
    members = (
        Membership.objects.select_for_update().filter(workspace=membership.workspace).order_by("pk")
    )
    if not any(m.role == Role.ADMIN and m.pk != membership.pk for m in members):
        raise MemberInputError(
            "last_admin",
            f"{membership.user.get_username()} is the workspace's last admin: make another "
            "member an admin first.",
        )


@transaction.atomic
def member_add(*, workspace: Workspace, username: str, role: str) -> Membership:
    """Give an existing user a role in ``workspace``."""
    if role not in Role.values:
        raise MemberInputError("invalid_role", f"Choose one of {', '.join(Role.labels)}.")
    user = User.objects.filter(username=username.strip()).first()
    if user is None:
        raise MemberInputError(
            "unknown_user",
            f"No user is named “{username.strip()}”: they need an account first "
            "(a staff member makes it on the Django admin's Users page).",
            {"field": "username"},
        )
    membership, created = Membership.objects.get_or_create(
        workspace=workspace, user=user, defaults={"role": role}
    )
    if not created:
        raise MemberInputError(
            "already_member",
            f"{user.get_username()} is already a member ({membership.get_role_display()}): "
            "change their role in the list.",
            {"field": "username"},
        )
    member_added_record(membership=membership)
    return membership


def member_added_record(*, membership: Membership) -> None:
    """The activity log's line for a member added (here, or a row the Django admin moved
    to another workspace or user: ``review.services.review_member_move``)."""
    activity_record(
        workspace=membership.workspace,
        action=ActivityAction.MEMBER_ADDED,
        target=membership.user.get_username(),
        details={"role": membership.role},
    )


@transaction.atomic
def member_role_change(*, membership: Membership, role: str) -> Membership:
    """Change a member's role; the workspace always keeps an admin."""
    if role not in Role.values:
        raise MemberInputError("invalid_role", f"Choose one of {', '.join(Role.labels)}.")
    if role != Role.ADMIN:
        _keep_an_admin(membership)
    before = Membership.objects.filter(pk=membership.pk).values_list("role", flat=True).first()
    Membership.objects.filter(pk=membership.pk).update(role=role)
    if before is not None and before != role:
        activity_record(
            workspace=membership.workspace,
            action=ActivityAction.MEMBER_ROLE_CHANGED,
            target=membership.user.get_username(),
            details={"from": before, "to": role},
        )
    membership.role = role
    return membership


@transaction.atomic
def member_remove(*, membership: Membership) -> None:
    """Take a member out of the workspace (their decisions and notes stay, under their
    name); the workspace always keeps an admin."""
    _keep_an_admin(membership)
    removed, _ = Membership.objects.filter(pk=membership.pk).delete()
    if removed:
        activity_record(
            workspace=membership.workspace,
            action=ActivityAction.MEMBER_REMOVED,
            target=membership.user.get_username(),
            details={"role": membership.role},
        )


@transaction.atomic
def api_key_create(
    *, workspace: Workspace, name: str, scope: str = ApiScope.WRITE, unique_name: bool = True
) -> CreatedApiKey:
    """Make a key for ``workspace``; the raw key is in the answer only. Its name is shown
    in the keys list, so one with a control or invisible formatting character (a
    bidirectional override would show it reversed) is refused; so, with ``unique_name``,
    is the name of another key of the workspace that is not revoked (a form sent twice
    must not make a second key whose secret nobody saw)."""
    if scope not in ApiScope.values:
        raise ValueError(f"unknown scope {scope!r}; expected one of {', '.join(ApiScope.values)}")
    refused = identifier_refusal("name", name)
    if refused is not None:
        raise ApiKeyInputError("invalid_name", refused, {"field": "name"})
    if unique_name:
        # Two requests making the same name at once queue here, on the workspace's row;
        # the second then finds the first one's key. (NO KEY UPDATE: rows that refer to
        # the workspace can still be written meanwhile.)
        Workspace.objects.select_for_update(no_key=True).filter(pk=workspace.pk).first()
        # in any letter case: "CI" beside "ci" would be two keys that read as one
        taken = (
            ApiKey.objects.filter(workspace=workspace, name__iexact=name, revoked_at__isnull=True)
            .values_list("name", flat=True)
            .first()
        )
        if taken is not None:
            raise ApiKeyInputError(
                "name_taken",
                f'This workspace already has a key named "{taken}" that is not revoked; '
                "revoke it first, or give the new key another name.",
                {"field": "name"},
            )
    raw_key = generate_api_key()
    api_key = ApiKey.objects.create(
        workspace=workspace,
        name=name,
        scope=scope,
        prefix=raw_key[:10],
        key_hash=hash_api_key(raw_key),
    )
    activity_record(
        workspace=workspace,
        action=ActivityAction.API_KEY_CREATED,
        target=name,
        details={"key_prefix": api_key.prefix, "scope": scope},
    )
    return CreatedApiKey(api_key=api_key, raw_key=raw_key)


LAST_USED_RESOLUTION = timedelta(seconds=60)


def api_key_touch(*, api_key: ApiKey) -> None:
    """Record that ``api_key`` was used, at most once per ``LAST_USED_RESOLUTION``, so a
    busy client does not pay an UPDATE on every request."""
    now = timezone.now()
    if api_key.last_used_at is not None and now - api_key.last_used_at < LAST_USED_RESOLUTION:
        return
    ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
    api_key.last_used_at = now


@transaction.atomic
def api_key_revoke(*, workspace: Workspace, key_id: int) -> ApiKey | None:
    """Revoke the workspace's key ``key_id`` (another workspace's or an unknown id: None).
    A revoked key stays listed, with when it was revoked; it no longer authenticates."""
    api_key = ApiKey.objects.select_for_update().filter(workspace=workspace, pk=key_id).first()
    if api_key is None:
        return None
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])
        activity_record(
            workspace=workspace,
            action=ActivityAction.API_KEY_REVOKED,
            target=api_key.name,
            details={"key_prefix": api_key.prefix, "scope": api_key.scope},
        )
    return api_key
