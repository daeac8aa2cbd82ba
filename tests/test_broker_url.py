"""The embedded broker's URL names a host, so kombu does not log "No hostname was
supplied. Reverting to default 'localhost'" in every web, worker and beat process."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent

_CONNECT = (
    "from config.celery import app\n"
    "from django.conf import settings\n"
    "connection = app.connection_for_write()\n"
    "connection.info()\n"
    "print(settings.CELERY_BROKER_URL, type(connection.transport).__module__)\n"
)


@pytest.mark.parametrize("broker_url", [None, "filesystem://", "filesystem:///"])
def test_the_filesystem_broker_connects_without_a_hostname_warning(
    tmp_path: Path, broker_url: str | None
) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB", "CELERY_"))
    }
    env.update(
        DATABASE_URL="postgres://spanproof:pw@db.invalid:5432/spanproof",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        SPANPROOF_DATA=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    if broker_url is not None:
        env["CELERY_BROKER_URL"] = broker_url
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + _CONNECT],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "No hostname was supplied" not in done.stderr + done.stdout
    assert done.stdout.split()[:2] == [
        "filesystem://localhost/",
        "config.filesystem_broker",
    ]
    assert (tmp_path / "broker" / "in").is_dir()
