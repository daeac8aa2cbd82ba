"""What a request gets while the database cannot be reached: a 503 that says so, never a
500 page or an error that names the socket, host or user it tried.

``handler500`` (``verifier.views.server_error``) asks ``database_unreachable`` about the
exception being handled: the API answers ``{"error": {"code": "unavailable", ...}}``, the
console a plain 503 page that needs neither the session nor the database; ``/healthz``
names the check that failed with ``check_failure``.

In the server log such an answer is one line naming the cause
(:class:`DatabaseUnreachableInOneLine`), not Django's traceback of some ninety lines per
request: while the database restarts, every console page and its panels polling each
second would otherwise write thousands of lines that say the same.
"""

from __future__ import annotations

import logging
from typing import Any, Final

import psycopg
from django.db import InterfaceError, OperationalError

from config.statement_timeout import RETRY_AFTER_SECONDS, statement_timed_out

__all__ = [
    "RETRY_AFTER_SECONDS",  # written once, in config.statement_timeout: one Retry-After
    "UNAVAILABLE_MESSAGE",
    "DatabaseUnreachableInOneLine",
    "check_failure",
    "database_unreachable",
]

UNAVAILABLE_MESSAGE: Final = "The database is unavailable; try again in a moment."


def database_unreachable(exc: BaseException | None) -> bool:
    """True for a failure to reach or keep a database connection (Django's wrapped
    errors, or psycopg's own from the prepared cursor), not for a bad query, nor for a
    statement the database cancelled (an OperationalError too:
    ``config.statement_timeout``)."""
    return isinstance(
        exc, OperationalError | InterfaceError | psycopg.OperationalError | psycopg.InterfaceError
    ) and not statement_timed_out(exc)


def check_failure(what: str, exc: BaseException) -> dict[str, Any]:
    """A failed /healthz check: which one and the kind of error, without the error's text
    (a driver's message names the socket path, host, port or user)."""
    return {"ok": False, "error": f"{what} is unavailable ({type(exc).__name__})"}


class DatabaseUnreachableInOneLine(logging.Filter):
    """Drop the traceback of a request Django logs (``django.request``, the 503 of
    ``handler500``) when its exception is :func:`database_unreachable`, and end the line
    with the cause: the error's type and its first line (the server log may name the
    socket or host; answers never do)."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if record.name.startswith("django.") and database_unreachable(exc):
            first = (str(exc).strip().splitlines() or [""])[0]
            cause = f"{type(exc).__name__}: {first}".replace("%", "%%")
            record.msg = f"{record.msg} (the database is unreachable: {cause})"
            record.exc_info = None
            record.exc_text = None
        return True
