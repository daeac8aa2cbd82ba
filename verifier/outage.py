"""What a request gets while the database cannot be reached: a 503 that says so, never a
500 page or an error that names the socket, host or user it tried.

``handler500`` (``verifier.views.server_error``) asks ``database_unreachable`` about the
exception being handled: the API answers ``{"error": {"code": "unavailable", ...}}``, the
console a plain 503 page that needs neither the session nor the database; ``/healthz``
names the check that failed with ``check_failure``.
"""

from __future__ import annotations

from typing import Any, Final

import psycopg
from django.db import InterfaceError, OperationalError

UNAVAILABLE_MESSAGE: Final = "The database is unavailable; try again in a moment."
RETRY_AFTER_SECONDS: Final = 10


def database_unreachable(exc: BaseException | None) -> bool:
    """True for a failure to reach or keep a database connection (Django's wrapped
    errors, or psycopg's own from the prepared cursor), not for a bad query."""
    return isinstance(
        exc, OperationalError | InterfaceError | psycopg.OperationalError | psycopg.InterfaceError
    )


def check_failure(what: str, exc: BaseException) -> dict[str, Any]:
    """A failed /healthz check: which one and the kind of error, without the error's text
    (a driver's message names the socket path, host, port or user)."""
    return {"ok": False, "error": f"{what} is unavailable ({type(exc).__name__})"}
