"""The owner role / runtime role split (``config/embedded_postgres.py``, README
"Database roles").

``manage.py migrate`` connects as the owner (``settings.DATABASE_OWNER``) and, once the
schema is current, grants the runtime role what the app needs and nothing more: rows
(SELECT, INSERT, UPDATE, DELETE; the triggers still refuse changes to history),
sequences, temporary tables (the ingest pipeline's binary COPY goes through one) and
``spanproof_analyze``. Advisory locks need no grant. No TRUNCATE, no ownership: the
runtime role cannot ALTER or DROP a table or its triggers.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connections


def runtime_role() -> str:
    """The role the app runs as, when a separate owner is configured (else "")."""
    owner = settings.DATABASE_OWNER.get("USER", "")
    user = settings.DATABASE_RUNTIME_USER
    return user if owner and user and user != owner else ""


@contextmanager
def as_owner(alias: str = "default") -> Iterator[str]:
    """Connect ``alias`` as the owner role for the duration (the test-database setup
    already does); yield the runtime role ("" when there is no separate owner)."""
    connection = connections[alias]
    role = runtime_role()
    if not role or connection.settings_dict.get("USER") == settings.DATABASE_OWNER["USER"]:
        yield role
        return
    saved = {key: connection.settings_dict.get(key) for key in ("USER", "PASSWORD")}
    connection.close()
    connection.settings_dict.update(settings.DATABASE_OWNER)
    try:
        yield role
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def grant_runtime_role(*, alias: str, role: str) -> None:
    """Idempotent grants for ``role`` on every table and sequence now in ``public``."""
    connection = connections[alias]
    quoted = connection.ops.quote_name(role)
    database = connection.ops.quote_name(connection.settings_dict["NAME"])
    statements = [
        f"GRANT CONNECT, TEMPORARY ON DATABASE {database} TO {quoted}",
        f"GRANT USAGE ON SCHEMA public TO {quoted}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {quoted}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {quoted}",
        f"GRANT EXECUTE ON FUNCTION spanproof_analyze(regclass) TO {quoted}",
    ]
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)
