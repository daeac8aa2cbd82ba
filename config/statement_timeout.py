"""A web request's database statements stop after ``SPANPROOF_DB_STATEMENT_TIMEOUT``
seconds; a Celery task's and a management command's run as long as they need.

Without a limit, a request whose statement waits on a lock another transaction holds, or
scans far more than it should, held its web thread until gunicorn killed the whole
worker (``verifier.web_server.WORKER_TIMEOUT_S``), every other request of that worker
with it, and the statement went on running in the database after the client had gone.

The limit is PostgreSQL's ``statement_timeout``, set when a connection starts (libpq's
``options``: ``-c statement_timeout=<ms>``): it costs no round trip, holds for every
statement the connection sends (the wait for a lock included), and cannot leak into
another process. The settings are the same in every process; what makes a process a web
process is that it loads the WSGI or ASGI application: ``config/wsgi.py`` and
``config/asgi.py`` call :func:`web_statement_timeout_apply` before serving (gunicorn,
``manage.py runserver``, any other WSGI server). A Celery worker or beat loads
``config.celery`` and ``manage.py`` a command (``migrate``, ``ingest``, the benches'
set-up), neither of which imports them, so their connections start without a limit.

A statement the server cancels is ``QueryCanceled`` (SQLSTATE 57014), which
:func:`statement_timed_out` recognises under Django's wrapper; the request answers a 503
``statement_timeout`` with ``Retry-After`` (the API's JSON error body in
``verifier.api.errors``, the console's 503 page in ``verifier.error_pages``) and the
server log has the statement's traceback, not a bare 500.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any, Final

import psycopg.errors
from django.conf import settings

STATEMENT_TIMEOUT_CODE: Final = "statement_timeout"
# What Retry-After says on a 503 for the database (a cancelled statement here, an
# unreachable database in ``verifier.outage``, which imports it): the lock, the load or
# the restart is usually over by then.
RETRY_AFTER_SECONDS: Final = 10
_OPTION: Final = "statement_timeout"


def options_with_statement_timeout(options: MutableMapping[str, Any], seconds: int) -> None:
    """Make ``options`` (a ``DATABASES`` entry's ``OPTIONS``) start each connection with
    ``statement_timeout`` at ``seconds``: nothing for 0, nor when libpq's ``options``
    already set one (``DATABASE_URL``'s ``?options=-c statement_timeout=...`` wins, and a
    second call changes nothing)."""
    current = str(options.get("options") or "")
    if seconds <= 0 or _OPTION in current:
        return
    options["options"] = f"{current} -c {_OPTION}={seconds * 1000}".strip()


def web_statement_timeout_apply() -> None:
    """Give this process's database connections the web requests' statement timeout
    (called by the web entry points only: the module docstring). Connections opened
    from now on start with it."""
    for database in settings.DATABASES.values():
        options_with_statement_timeout(
            database.setdefault("OPTIONS", {}), settings.SPANPROOF_DB_STATEMENT_TIMEOUT
        )


def statement_timed_out(exc: BaseException | None) -> bool:
    """True when ``exc`` is PostgreSQL cancelling a statement (its statement timeout, or
    an operator's ``pg_cancel_backend``), as psycopg raises it or under Django's wrapper
    (``django.db.OperationalError`` whose cause it is)."""
    while exc is not None:
        if isinstance(exc, psycopg.errors.QueryCanceled):
            return True
        exc = exc.__cause__
    return False


def statement_timeout_message() -> str:
    """What the answer to a request whose statement was cancelled says."""
    seconds = settings.SPANPROOF_DB_STATEMENT_TIMEOUT
    stopped = (
        f"ran longer than the {seconds} second{'' if seconds == 1 else 's'} a request's "
        "statement may take and was stopped"
        if seconds
        else "was stopped by the database"
    )
    return (
        f"The request's database query {stopped}. Try again in a moment; if it happens "
        "again, ask for less at once (a smaller page or batch) or tell the operator."
    )
