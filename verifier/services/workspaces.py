from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from verifier.models import ApiKey, Membership, Role, Workspace, generate_api_key, hash_api_key


@dataclass(frozen=True)
class CreatedApiKey:
    api_key: ApiKey
    raw_key: str  # shown once, never stored


def workspace_create(*, slug: str, name: str) -> Workspace:
    workspace, _ = Workspace.objects.get_or_create(slug=slug, defaults={"name": name})
    return workspace


def membership_set(*, workspace: Workspace, user, role: str) -> Membership:
    if role not in Role.values:
        raise ValueError(f"unknown role {role!r}; expected one of {', '.join(Role.values)}")
    membership, _ = Membership.objects.update_or_create(
        workspace=workspace, user=user, defaults={"role": role}
    )
    return membership


@transaction.atomic
def api_key_create(*, workspace: Workspace, name: str) -> CreatedApiKey:
    raw_key = generate_api_key()
    api_key = ApiKey.objects.create(
        workspace=workspace,
        name=name,
        prefix=raw_key[:10],
        key_hash=hash_api_key(raw_key),
    )
    return CreatedApiKey(api_key=api_key, raw_key=raw_key)
