"""The embedded PostgreSQL is not a child of ``run_console`` (it outlives it), so the
supervisor watches it: stopped behind the console's back (``kill -INT`` of the
postmaster, or ``kill -9``), it is started again, on the same socket, and takes
connections again."""

from __future__ import annotations

import os
import signal
import time

import psycopg
import pytest

from config.embedded_postgres import (
    APP_ROLE,
    DATABASE_NAME,
    _running_info,
    embedded_postgres_running,
    ensure_embedded_postgres,
    stop_embedded_postgres,
)
from verifier.supervisor import Supervisor


def _query(database: dict) -> int:
    with psycopg.connect(
        host=database["HOST"], port=int(database["PORT"]), user=APP_ROLE, dbname=DATABASE_NAME
    ) as conn:
        row = conn.execute("SELECT 1").fetchone()
    assert row is not None
    return int(row[0])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["INT", "KILL"])
def test_a_stopped_embedded_server_is_started_again(tmp_path, sig):
    pgdata = tmp_path / "pgdata"
    lines: list[str] = []
    supervisor = Supervisor(log=lines.append, backoff_first_s=0.2, backoff_max_s=1.0)
    try:
        database = ensure_embedded_postgres(pgdata)
        assert _query(database) == 1
        supervisor.watch(
            "PostgreSQL (embedded)",
            is_up=lambda: embedded_postgres_running(pgdata),
            start=lambda: ensure_embedded_postgres(pgdata),
            every_s=0.2,
        )
        supervisor.poll()
        assert lines == []  # up: nothing to do
        pid = _running_info(pgdata).pid
        os.kill(pid, sig)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            supervisor.poll()
            info = _running_info(pgdata)
            if info is not None and info.pid != pid and any("started again" in x for x in lines):
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"not started again: {lines}")
        assert lines[0] == "PostgreSQL (embedded) is down; starting it in 0.2 s"
        restarted = ensure_embedded_postgres(pgdata)
        assert (restarted["HOST"], restarted["PORT"]) == (database["HOST"], database["PORT"])
        assert _query(database) == 1  # the same address the children were given
    finally:
        stop_embedded_postgres(pgdata)
