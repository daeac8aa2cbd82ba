"""A worker's sign of life survives a database restart quietly: the connection its
thread held is dead afterwards, and the beat (and the shutdown's forget) is written on
a fresh connection at once, with no warning. While the database stays unreachable the
thread logs one warning, not one per beat, and one line when it records again."""

from __future__ import annotations

import logging

import pytest
from django.db import connection, connections

from verifier import worker_liveness
from verifier.models import WorkerBeat

pytestmark = pytest.mark.django_db(transaction=True)

HOST = "celery@test:1"


def _kill_this_connection() -> None:
    """What a database restart does to a connection a thread holds."""
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


def test_a_beat_after_a_database_restart_is_recorded_without_a_warning(caplog):
    _kill_this_connection()
    with caplog.at_level(logging.WARNING, logger=worker_liveness.__name__):
        worker_liveness._beat_once(HOST)
    assert WorkerBeat.objects.filter(hostname=HOST).exists()
    assert not caplog.records


def test_forgetting_the_beat_after_a_database_restart_works_without_a_warning(caplog):
    worker_liveness._beat_once(HOST)
    _kill_this_connection()
    with caplog.at_level(logging.WARNING, logger=worker_liveness.__name__):
        worker_liveness.stop_beating(hostname=HOST)
    assert not WorkerBeat.objects.filter(hostname=HOST).exists()
    assert not caplog.records


def test_an_unreachable_database_is_one_warning_then_one_line_when_back(caplog, monkeypatch):
    with caplog.at_level(logging.WARNING, logger=worker_liveness.__name__):
        connection.close()
        with monkeypatch.context() as patched:  # the server gone: nothing listens there
            patched.setitem(connection.settings_dict, "HOST", "/nonexistent-socket-dir")
            patched.setitem(connection.settings_dict, "PORT", "1")
            for _ in range(3):
                worker_liveness._beat_once(HOST)
        worker_liveness._beat_once(HOST)
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert f"worker {HOST} could not record its beat (OperationalError" in messages[0]
    assert messages[1] == f"worker {HOST} records its beat again"
    assert WorkerBeat.objects.filter(hostname=HOST).exists()
