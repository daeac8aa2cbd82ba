"""A web request's statement stops after ``SPANPROOF_DB_STATEMENT_TIMEOUT`` seconds and
the request answers a 503 ``statement_timeout`` (config/statement_timeout.py); a Celery
worker's and a management command's connections have no limit.

The requests here are real ones through the middleware and the views, on the real
database, stuck behind a real lock that a second connection holds: without the timeout
they would wait for the lock for ever (a guard releases it after ``GUARD_SECONDS``, so
the test then fails on the answer instead of hanging)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final
from urllib.parse import quote

import psycopg
import pytest
from django.conf import settings as django_settings
from django.db import connection
from django.test import Client

from config.statement_timeout import (
    STATEMENT_TIMEOUT_CODE,
    options_with_statement_timeout,
    statement_timed_out,
    web_statement_timeout_apply,
)
from tests.test_settings_refusals import _manage_check
from tests.verifier.api.conftest import key_for

ROOT: Final = Path(__file__).resolve().parent.parent.parent
GUARD_SECONDS: Final = 60


@pytest.fixture
def web_connection(transactional_db, settings) -> Iterator[None]:
    """This process's connection as a web process opens it, with a 1-second statement
    timeout; put back as it was afterwards."""
    with _as_a_web_process(settings, seconds=1):
        yield


@contextmanager
def _as_a_web_process(settings, *, seconds: int) -> Iterator[None]:
    """Connections opened meanwhile start as a web process's do with ``seconds`` (a
    timeout set before, by an earlier import of ``config.wsgi`` in this process, is
    taken off first); the options are put back and the connection closed afterwards."""
    settings.SPANPROOF_DB_STATEMENT_TIMEOUT = seconds
    options = connection.settings_dict["OPTIONS"]
    saved = dict(options)
    connection.close()
    options.pop("options", None)
    web_statement_timeout_apply()
    try:
        yield
    finally:
        connection.close()
        options.clear()
        options.update(saved)


class TableLock:
    """``table`` locked by a second connection (ACCESS EXCLUSIVE: every read of it waits)
    until the test ends, or ``GUARD_SECONDS`` at most."""

    def __init__(self, table: str) -> None:
        params = connection.get_connection_params()
        params.pop("options", None)  # the locker itself has no statement timeout
        params.pop("prepare_threshold", None)
        self.conn = psycopg.connect(**params)
        self.conn.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
        self.guard = threading.Timer(GUARD_SECONDS, self.release)
        self.guard.start()

    def release(self) -> None:
        if not self.conn.closed:
            self.conn.cancel()
            self.conn.close()

    def __enter__(self) -> TableLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.guard.cancel()
        self.release()


def test_an_api_request_stuck_behind_a_lock_answers_a_json_503(web_connection, workspace, caplog):
    key = key_for(workspace, "read")
    client = Client(headers={"Authorization": f"Bearer {key}"}, raise_request_exception=False)
    with caplog.at_level(logging.WARNING), TableLock("verifier_apikey"):
        response = client.get("/connect/v1/workspace")
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == STATEMENT_TIMEOUT_CODE
    assert "ran longer than the 1 second a request's statement may take" in error["message"]
    assert error["details"]["timeout_seconds"] == 1
    assert error["details"]["request_id"] == response["X-Request-ID"]
    assert response["Retry-After"]
    logged = [r for r in caplog.records if r.name == "verifier.api.errors"]
    assert len(logged) == 1 and "statement timeout 1 s" in logged[0].getMessage()
    assert statement_timed_out(logged[0].exc_info[1])  # the traceback names the query
    # the connection serves the next request once the lock is gone
    assert client.get("/connect/v1/workspace").status_code == 200


def test_a_console_page_stuck_behind_a_lock_answers_the_503_page(
    web_connection, reviewer_client, caplog
):
    reviewer_client.raise_request_exception = False
    with caplog.at_level(logging.WARNING), TableLock("django_session"):
        response = reviewer_client.get("/review/")
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert b"Temporarily unavailable" in response.content
    assert b"ran longer than the 1 second" in response.content
    assert b"database is unavailable" not in response.content
    assert response["Retry-After"]
    logged = [r for r in caplog.records if r.name == "django.request"]
    assert logged and "Service Unavailable: /review/" in logged[0].getMessage()
    assert statement_timed_out(logged[0].exc_info[1])  # logged with its traceback
    assert reviewer_client.get("/review/").status_code == 200


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0"), (2, "2s")])
def test_a_web_connection_starts_with_the_setting(transactional_db, settings, seconds, shown):
    with _as_a_web_process(settings, seconds=seconds), connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == shown


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({}, {"options": "-c statement_timeout=30000"}),
        (
            {"options": "-c search_path=app"},
            {"options": "-c search_path=app -c statement_timeout=30000"},
        ),
        # DATABASE_URL's own wins, and a second call changes nothing
        ({"options": "-c statement_timeout=5000"}, {"options": "-c statement_timeout=5000"}),
    ],
)
def test_the_connection_options(before, after):
    options = dict(before)
    options_with_statement_timeout(options, 30)
    assert options == after
    options_with_statement_timeout(options, 30)
    assert options == after


def test_zero_sets_nothing():
    options: dict[str, str] = {}
    options_with_statement_timeout(options, 0)
    assert options == {}


# What each kind of process's connection starts with: the web process is the one that
# loaded the WSGI (or ASGI) application; a Celery worker loads config.celery; a
# management command only its own modules.
SHOW = (
    "from django.db import connection\n"
    "with connection.cursor() as cursor:\n"
    "    cursor.execute('SHOW statement_timeout')\n"
    "    print('statement_timeout=' + cursor.fetchone()[0])\n"
)
LOADS = {
    "wsgi": "import config.wsgi\n",
    "asgi": "import config.asgi\n",
    "celery": "import django\nfrom config.celery import app\ndjango.setup()\n",
}


def _env(tmp_path: Path) -> dict[str, str]:
    db = connection.settings_dict
    host = quote(db["HOST"], safe="")
    url = f"postgres://{django_settings.DATABASE_RUNTIME_USER}@{host}:{db['PORT']}/{db['NAME']}"
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "SPANPROOF_DB_STATEMENT_TIMEOUT" and not k.startswith("DATABASE_")
    }
    env.update(
        DATABASE_URL=url,
        DJANGO_SECRET_KEY="test-only-" + "k" * 50,
        DJANGO_SETTINGS_MODULE="config.settings",
        SPANPROOF_DATA=str(tmp_path),
        DJANGO_DEBUG="0",
    )
    return env


@pytest.mark.parametrize(("kind", "expected"), [("wsgi", "30s"), ("asgi", "30s"), ("celery", "0")])
def test_only_a_web_process_starts_its_connections_with_the_timeout(
    transactional_db, tmp_path, kind, expected
):
    result = subprocess.run(
        [sys.executable, "-c", LOADS[kind] + SHOW],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"statement_timeout={expected}" in result.stdout


def test_a_management_command_has_no_limit(transactional_db, tmp_path):
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SHOW],
        cwd=ROOT,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "statement_timeout=0" in result.stdout


@pytest.mark.parametrize(("value", "says"), [("-5", "0 for no limit"), ("soon", "a whole number")])
def test_a_timeout_that_cannot_work_stops_start_up_naming_it(tmp_path, value, says):
    result = _manage_check(tmp_path, SPANPROOF_DB_STATEMENT_TIMEOUT=value)
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = result.stderr.strip().splitlines()  # one line, no traceback
    assert "SPANPROOF_DB_STATEMENT_TIMEOUT" in line and says in line, line
