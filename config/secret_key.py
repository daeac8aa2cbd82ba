"""The secret key: from ``DJANGO_SECRET_KEY``, or generated once for the embedded setup.

Embedded (no ``DATABASE_URL``), a random key is generated on first start and kept in
``<data folder>/secret_key`` (mode 0600), so sessions survive restarts and no two
installations share a key. With ``DATABASE_URL`` set (a production deployment) the key
must come from the environment and be strong (Django's ``security.W009`` rule: at least
50 characters, at least 5 different ones, not ``django-insecure-``): starting without
it, or with a weak one, is refused. It signs sessions, and wraps the workspaces'
audit-pack signing keys, so it never changes in place (docs/operations.md).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

SECRET_KEY_FILE = "secret_key"
# Django's own bar for a secret key (``django.core.checks.security.base``, W009)
MIN_LENGTH = 50
MIN_UNIQUE_CHARACTERS = 5
INSECURE_PREFIX = "django-insecure-"
GENERATE_HINT = 'generate one with: python -c "import secrets; print(secrets.token_urlsafe(50))"'


def weak_key_reason(key: str) -> str | None:
    """Why ``key`` is too weak to sign a production deployment's sessions, or None."""
    if len(key) < MIN_LENGTH:
        return f"it has {len(key)} characters, fewer than {MIN_LENGTH}"
    if len(set(key)) < MIN_UNIQUE_CHARACTERS:
        return f"it has {len(set(key))} different characters, fewer than {MIN_UNIQUE_CHARACTERS}"
    if key.startswith(INSECURE_PREFIX):
        return f"it starts with {INSECURE_PREFIX!r} (Django's throwaway development keys)"
    return None


def embedded_secret_key(data_dir: Path) -> str:
    """Read the key stored in ``data_dir``; create it (atomically, 0600) when missing."""
    path = data_dir / SECRET_KEY_FILE
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first: use theirs
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def secret_key_from(env: Mapping[str, str], data_dir: Path) -> str:
    configured = env.get("DJANGO_SECRET_KEY", "").strip()
    production = bool(env.get("DATABASE_URL"))
    if configured and production and (reason := weak_key_reason(configured)) is not None:
        raise ImproperlyConfigured(
            f"DJANGO_SECRET_KEY is too weak for a production deployment (DATABASE_URL is "
            f"set): {reason}; {GENERATE_HINT}"
        )
    if configured:
        return configured
    if production:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DATABASE_URL is (a production deployment); "
            + GENERATE_HINT
        )
    return embedded_secret_key(data_dir)
