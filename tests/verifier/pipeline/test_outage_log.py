"""A request answered 503 because the database cannot be reached is one line in the
server log, naming the cause (``verifier.outage.DatabaseUnreachableInOneLine``, installed
on the console handler by the settings' ``LOGGING``), not a traceback of some ninety
lines per request: a restarting database under a console whose panels poll each second
would otherwise bury the log."""

from __future__ import annotations

import io
import logging

import pytest
from django.db import connection
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


def _console_handler() -> logging.StreamHandler:
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
    assert handlers, "the settings' LOGGING installs a console handler on the root logger"
    return handlers[0]


def test_an_answer_for_an_unreachable_database_is_logged_in_one_line(monkeypatch):
    handler = _console_handler()
    log = io.StringIO()
    previous = handler.setStream(log)
    connection.close()
    try:
        with monkeypatch.context() as gone:  # the server is down: nothing listens there
            gone.setitem(connection.settings_dict, "HOST", "/nonexistent-socket-dir")
            gone.setitem(connection.settings_dict, "PORT", "1")
            response = Client(raise_request_exception=False).get(
                "/connect/v1/sources", HTTP_AUTHORIZATION="Bearer sp_not-a-key"
            )
            connection.close()
    finally:
        handler.setStream(previous)

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    lines = [line for line in log.getvalue().splitlines() if line.strip()]
    assert "Traceback" not in log.getvalue(), log.getvalue()[:2000]
    unavailable = [line for line in lines if "Service Unavailable: /connect/v1/sources" in line]
    assert len(unavailable) == 1, lines
    assert "the database is unreachable: OperationalError" in unavailable[0]
    assert "/nonexistent-socket-dir" in unavailable[0]  # the log names where it tried
