from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models

from verifier.vocabulary import API_KEY_SCOPES, ROLES

API_KEY_PREFIX = "sp_"


class Role(models.TextChoices):
    # the labels are the one vocabulary's (``verifier.vocabulary.ROLES``)
    REVIEWER = "reviewer", ROLES["reviewer"].label
    AUDITOR = "auditor", ROLES["auditor"].label
    ADMIN = "admin", ROLES["admin"].label


class ApiScope(models.TextChoices):
    """What an API key may do; each scope includes the ones before it.

    Console members hold the scope of their role (see ``verifier.permissions``)."""

    READ = "read", API_KEY_SCOPES["read"].label  # ``verifier.vocabulary.API_KEY_SCOPES``
    WRITE = "write", API_KEY_SCOPES["write"].label
    ADMIN = "admin", API_KEY_SCOPES["admin"].label


class Workspace(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    blind_review = models.BooleanField(
        default=False, help_text="Hide model and earlier human verdicts until I decide."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique_user"),
            models.CheckConstraint(
                condition=models.Q(role__in=[r.value for r in Role]), name="membership_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.role} · {self.workspace.slug}"


def hash_api_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode("utf-8")).hexdigest()


def generate_api_key() -> str:
    return API_KEY_PREFIX + secrets.token_urlsafe(32)


class ApiKey(models.Model):
    """A per-workspace API key. Only its SHA-256 is stored; the key is shown once."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="First characters, to recognise the key.")
    key_hash = models.CharField(max_length=64, unique=True)
    # Keys made before scopes existed got ``admin`` (what they could already do); new
    # keys default to ``write`` (migration 0008).
    scope = models.CharField(max_length=8, choices=ApiScope.choices, default=ApiScope.WRITE)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope__in=[s.value for s in ApiScope]),
                name="api_key_scope_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…, {self.scope})"
