"""The embedded PostgreSQL gets its server settings: a fresh data folder is restarted
once with them; a server already running keeps its own until its next start."""

from __future__ import annotations

import psycopg

from config.embedded_postgres import (
    SUPERUSER,
    _running_info,
    ensure_embedded_postgres,
    server_settings,
    stop_embedded_postgres,
)


def test_server_settings_defaults_and_overrides():
    defaults = server_settings({})
    assert defaults["shared_buffers"] == "1GB"
    assert defaults["max_wal_size"] == "4GB"
    assert defaults["maintenance_work_mem"] == "1GB"
    tuned = server_settings(
        {"SPANPROOF_PG_SHARED_BUFFERS": "256MB", "SPANPROOF_PG_MAX_WAL_SIZE": "2GB"}
    )
    assert (tuned["shared_buffers"], tuned["max_wal_size"]) == ("256MB", "2GB")


def _current(pgdata, names):
    info = _running_info(pgdata)
    with psycopg.connect(
        host=str(info.socket_dir), port=int(info.port or 5432), user=SUPERUSER, dbname="postgres"
    ) as conn:
        return dict(
            conn.execute(
                "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
                [names],
            ).fetchall()
        )


def test_fresh_server_starts_with_the_settings_and_a_running_one_keeps_its_own(
    tmp_path, monkeypatch
):
    pgdata = tmp_path / "pgdata"
    monkeypatch.setenv("SPANPROOF_PG_SHARED_BUFFERS", "160MB")
    try:
        ensure_embedded_postgres(pgdata)
        wanted = server_settings({"SPANPROOF_PG_SHARED_BUFFERS": "160MB"})
        # shared_buffers needs a restart: only the restarted server shows it.
        assert _current(pgdata, list(wanted)) == wanted
        pid = _running_info(pgdata).pid

        monkeypatch.setenv("SPANPROOF_PG_SHARED_BUFFERS", "192MB")
        ensure_embedded_postgres(pgdata)
        assert _running_info(pgdata).pid == pid, "a running server is never restarted"
        assert _current(pgdata, ["shared_buffers"]) == {"shared_buffers": "160MB"}

        assert stop_embedded_postgres(pgdata)
        ensure_embedded_postgres(pgdata)  # its next start applies what was written
        assert _current(pgdata, ["shared_buffers"]) == {"shared_buffers": "192MB"}
    finally:
        stop_embedded_postgres(pgdata)
