"""Per-workspace API keys: ``Authorization: Bearer <key>``. Failed attempts are counted
per client address and throttled (``verifier.api.throttling``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from verifier.api.throttling import auth_failure_count, auth_failures_check
from verifier.selectors.workspaces import api_key_authenticate
from verifier.services.workspaces import api_key_touch
from verifier.trace_caller import Caller, caller_set


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
        # HTTP separates with spaces and tabs only: str.split() would also split at a
        # latin-1 no-break space (0xA0) or NEL (0x85) and leave nothing to read.
        parts = header.replace("\t", " ").split(" ")
        parts = [p for p in parts if p]
        if not parts:
            auth_failures_check(request)
            auth_failure_count(request)
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <key>'.")
        # The scheme is case-insensitive (RFC 7235 §2.1): "bearer" is "Bearer". Another
        # scheme is left to the session (a proxy's Basic login may sit in front of the
        # console); without one, the 401 says which scheme to use (``scheme_hint``).
        if parts[0].casefold() != self.keyword.casefold():
            return None
        # An address over its failed-authentication limit is refused before the lookup.
        auth_failures_check(request)
        if len(parts) != 2:
            auth_failure_count(request)
            raise exceptions.AuthenticationFailed("Authorization header must be 'Bearer <key>'.")
        api_key = api_key_authenticate(raw_key=parts[1])
        if api_key is None:
            auth_failure_count(request)
            raise exceptions.AuthenticationFailed("Unknown or revoked API key.")
        api_key_touch(api_key=api_key)
        caller_set(Caller(kind="api_key", name=api_key.name, key_prefix=api_key.prefix))
        return ApiKeyUser(api_key), api_key

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="connect"'


def scheme_hint(request: Any) -> str | None:
    """For an unauthenticated request whose ``Authorization`` header uses another scheme
    than Bearer: the 401's message, saying what to send instead."""
    if request is None:
        return None
    raw = authentication.get_authorization_header(request).decode("latin-1")
    header = [p for p in raw.replace("\t", " ").split(" ") if p]
    if not header or header[0].casefold() == ApiKeyAuthentication.keyword.casefold():
        return None
    if len(header) == 1:
        # No credentials after it: not a scheme but a credential sent bare (a key without
        # "Bearer "). Never echoed: an error body ends up in logs.
        return (
            "The Authorization header holds no scheme; this API reads "
            "`Authorization: Bearer <key>` (a workspace API key)."
        )
    return (
        f"The Authorization header uses the {header[0][:20]!r} scheme; this API reads "
        "`Authorization: Bearer <key>` (a workspace API key)."
    )
