"""Per-workspace API keys: ``Authorization: Bearer <key>``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from verifier.selectors.workspaces import api_key_authenticate
from verifier.services.workspaces import api_key_touch


class ApiKeyUser(AnonymousUser):
    """The principal of an API-key request: authenticated, scoped to one workspace."""

    def __init__(self, api_key: Any) -> None:
        super().__init__()
        self.api_key = api_key
        self.workspace = api_key.workspace

    @property
    def is_authenticated(self) -> bool:  # type: ignore[override]
        return True

    @property
    def is_anonymous(self) -> bool:  # type: ignore[override]
        return False

    def __str__(self) -> str:
        return f"api-key:{self.api_key.prefix}"


class ApiKeyAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[ApiKeyUser, Any] | None:
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        parts = header.split()
        if parts[0] != self.keyword:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <key>'.")
        api_key = api_key_authenticate(raw_key=parts[1])
        if api_key is None:
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        api_key_touch(api_key=api_key)
        return ApiKeyUser(api_key), api_key

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="connect"'
