from __future__ import annotations

from django.db.models import QuerySet

from verifier.models import ApiKey, Membership, Workspace, hash_api_key


def membership_list(*, user) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(user=user).select_related("workspace").order_by("workspace__slug")
    )


def membership_get(*, user, slug: str | None = None) -> Membership | None:
    """The user's membership in ``slug``, or in their first workspace when no slug."""
    if user is None or not user.is_authenticated:
        return None
    memberships = membership_list(user=user)
    if slug:
        return memberships.filter(workspace__slug=slug).first()
    return memberships.first()


def api_key_authenticate(*, raw_key: str) -> ApiKey | None:
    """The live key whose hash matches ``raw_key``, with its workspace."""
    return (
        ApiKey.objects.select_related("workspace")
        .filter(key_hash=hash_api_key(raw_key), revoked_at__isnull=True)
        .first()
    )


def workspace_get(*, slug: str) -> Workspace | None:
    return Workspace.objects.filter(slug=slug).first()
