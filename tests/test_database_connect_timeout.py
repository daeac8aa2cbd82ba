"""Opening a database connection gives up after ``SPANPROOF_DB_CONNECT_TIMEOUT`` seconds
(libpq's ``connect_timeout``): a database host that takes the connection and never
answers, or drops the packets, held each request for the kernel's TCP retries, past the
web worker's timeout, instead of failing it with a 503."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
CONNECT: Final = (
    "from django.db import connection\n"
    "try:\n"
    "    connection.ensure_connection()\n"
    "except Exception as exc:\n"
    "    print('refused:', exc)\n"
)


def _connect_to(port: int, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB"))
    }
    clean.update(
        DATABASE_URL=f"postgres://spanproof:pw@127.0.0.1:{port}/spanproof",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        SPANPROOF_DATA=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings",
        **env,
    )
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", CONNECT],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=90,  # without a connect timeout the call waits for ever: this fails the test
    )


def test_a_database_that_never_answers_fails_the_connection(tmp_path: Path) -> None:
    with socket.socket() as silent:  # takes connections (the kernel's backlog), says nothing
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        result = _connect_to(silent.getsockname()[1], tmp_path, SPANPROOF_DB_CONNECT_TIMEOUT="2")
    assert result.returncode == 0, result.stderr
    assert "refused:" in result.stdout and "timeout" in result.stdout.lower(), result.stdout


def test_the_timeout_is_in_the_connection_options(settings) -> None:
    assert settings.DATABASES["default"]["OPTIONS"]["connect_timeout"] == 10
