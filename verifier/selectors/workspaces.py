from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.db.models import F, QuerySet

from verifier.models import ApiKey, Membership, Workspace, hash_api_key
from verifier.selectors.prepared import prepared_cursor


def membership_list(*, user: User) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user).select_related("workspace").order_by("workspace__slug")
    )


def membership_get(
    *, user: User | AnonymousUser | None, slug: str | None = None
) -> Membership | None:
    """The user's membership in ``slug``, or in their first workspace when no slug."""
    if user is None or not user.is_authenticated:
        return None
    memberships = membership_list(user=user)
    if slug:
        return memberships.filter(workspace__slug=slug).first()
    return memberships.first()


# Every API call looks its key up: one fixed statement, prepared after a few calls (the
# ORM compiled the same join on each call: 0.7 ms against ~0.2).
_API_KEY_FIELDS = tuple(ApiKey._meta.concrete_fields)
_WORKSPACE_FIELDS = tuple(Workspace._meta.concrete_fields)
_API_KEY_ATTNAMES = [f.attname for f in _API_KEY_FIELDS]
_WORKSPACE_ATTNAMES = [f.attname for f in _WORKSPACE_FIELDS]
_API_KEY_SQL = (
    "SELECT "
    + ", ".join(
        [f'k."{f.column}"' for f in _API_KEY_FIELDS]
        + [f'w."{f.column}"' for f in _WORKSPACE_FIELDS]
    )
    + f' FROM "{ApiKey._meta.db_table}" k'
    + f' JOIN "{Workspace._meta.db_table}" w ON w."id" = k."workspace_id"'
    + ' WHERE k."key_hash" = %s AND k."revoked_at" IS NULL'
)


def api_key_authenticate(*, raw_key: str) -> ApiKey | None:
    """The live key whose hash matches ``raw_key`` (``key_hash`` is unique), with its
    workspace loaded."""
    with prepared_cursor() as cursor:
        cursor.execute(_API_KEY_SQL, [hash_api_key(raw_key)])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(_API_KEY_ATTNAMES)
    api_key = ApiKey.from_db(connection.alias, _API_KEY_ATTNAMES, row[:split])
    api_key.workspace = Workspace.from_db(connection.alias, _WORKSPACE_ATTNAMES, row[split:])
    return api_key


def workspace_get(*, slug: str) -> Workspace | None:
    return Workspace.objects.filter(slug=slug).first()


def api_key_list(*, workspace: Workspace) -> QuerySet[ApiKey]:
    """The workspace's API keys, live ones first, newest first (never their hashes)."""
    return (
        ApiKey.objects.filter(workspace=workspace)
        .order_by(F("revoked_at").desc(nulls_first=True), "-created_at", "-pk")
        .defer("key_hash")
    )


def workspace_members(*, workspace: Workspace) -> QuerySet[Membership]:
    """The workspace's members with their users, by name."""
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("user__username")
    )
