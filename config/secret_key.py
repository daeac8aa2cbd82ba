"""The secret key: from ``DJANGO_SECRET_KEY``, or generated once for the embedded setup.

Embedded (no ``DATABASE_URL``), a random key is generated on first start and kept in
``<data folder>/secret_key`` (mode 0600), so sessions survive restarts and no two
installations share a key. With ``DATABASE_URL`` set (a production deployment) the key
must come from the environment: starting without it is refused.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

SECRET_KEY_FILE = "secret_key"


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
    if configured:
        return configured
    if env.get("DATABASE_URL"):
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DATABASE_URL is (a production deployment); "
            'generate one with: python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )
    return embedded_secret_key(data_dir)
