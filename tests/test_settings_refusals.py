"""A setting that cannot work stops start-up with one line naming the variable and what
it takes (config/settings_env.py, manage.py), never a traceback or a 500 on the first
request that uses it; production refuses debug pages and a weak secret key."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.embedded_postgres import server_settings
from config.secret_key import secret_key_from, weak_key_reason
from config.settings_env import database_settings, env_rate
from verifier.api.rates import RateError, parse_rate

ROOT: Final = Path(__file__).resolve().parent.parent
PRODUCTION_URL: Final = "postgres://spanproof:pw@db.invalid:5432/spanproof"


def _manage_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``manage.py check`` in production mode (an external database that is never
    reached, so no embedded server starts), with ``env`` on top."""
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB"))
    }
    clean.update(
        DATABASE_URL=PRODUCTION_URL,
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        SPANPROOF_DATA=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("SPANPROOF_JUDGE_BACKEND", "foo", "heuristic+nli-v2"),
        ("SPANPROOF_EXTRACTOR_BACKEND", "bar", "sentence"),
        ("SPANPROOF_JUDGE_BACKEND", "openai", "SPANPROOF_JUDGE_BASE_URL"),
        ("SPANPROOF_API_RATE_PER_KEY", "lots", "<n>/<sec|min|hour|day>"),
        ("SPANPROOF_API_RATE_PER_IP", "10/fortnight", "<n>/<sec|min|hour|day>"),
        ("SPANPROOF_API_AUTH_FAILURES_PER_IP", "0/min", "<n>/<sec|min|hour|day>"),
        ("SPANPROOF_JOB_STALE_SECONDS", "abc", "a whole number"),
        ("SPANPROOF_LOGIN_LOCKOUT", "maybe", "1/0, true/false"),
        ("SPANPROOF_QUERY_EMBED_BACKEND", "zzz", "onnx-int8"),
        ("DATABASE_URL", "not a url", "PostgreSQL URL"),
        ("DATABASE_URL", "mysql://u:p@db/spanproof", "PostgreSQL URL"),
        ("DATABASE_URL", "postgres://u:p@db:port/spanproof", "not a valid URL"),
        ("DATABASE_OWNER_URL", "sqlite:///owner.db", "PostgreSQL URL"),
        ("DJANGO_DEBUG", "1", "must be off"),
        ("DJANGO_SECRET_KEY", "x", "too weak"),
        ("DJANGO_SECRET_KEY", "ab" * 40, "too weak"),
    ],
)
def test_a_setting_that_cannot_work_is_one_line_naming_its_variable(
    tmp_path: Path, variable: str, value: str, says: str
) -> None:
    result = _manage_check(tmp_path, **{variable: value})
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # no traceback
    assert lines[0].startswith("Configuration error: "), lines
    assert variable in lines[0] and says in lines[0], lines[0]


def test_the_production_variables_still_pass_the_check(tmp_path: Path) -> None:
    result = _manage_check(
        tmp_path,
        SPANPROOF_JUDGE_BACKEND="heuristic",
        SPANPROOF_API_RATE_PER_KEY="100/hour",
        SPANPROOF_API_RATE_PER_IP="",  # off
        DJANGO_DEBUG="0",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_traceback_shows_the_whole_stack_when_asked(tmp_path: Path) -> None:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB"))
    }
    clean.update(
        DATABASE_URL=PRODUCTION_URL,
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        SPANPROOF_DATA=str(tmp_path),
        SPANPROOF_JUDGE_BACKEND="foo",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--traceback"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "Traceback" in result.stderr and "SPANPROOF_JUDGE_BACKEND" in result.stderr


def test_rates_read_as_n_per_period() -> None:
    assert parse_rate("600/min") == (600, 60)
    assert parse_rate(" 20 / second ") == (20, 1)
    assert parse_rate("5/h") == (5, 3600)
    assert parse_rate("1/days") == (1, 86400)
    assert parse_rate("") is None and parse_rate(None) is None
    for bad in ("lots", "10", "10/", "/min", "10/month", "x/min", "0/min", "-1/min", "1/min/2"):
        with pytest.raises(RateError):
            parse_rate(bad)
    with pytest.raises(ImproperlyConfigured, match="SPANPROOF_API_RATE_PER_KEY='lots'"):
        env_rate(
            "SPANPROOF_API_RATE_PER_KEY", "600/min", environ={"SPANPROOF_API_RATE_PER_KEY": "lots"}
        )
    assert env_rate("SPANPROOF_API_RATE_PER_KEY", "600/min", environ={}) == "600/min"


def test_only_postgresql_urls_are_databases() -> None:
    for url in ("postgres://u:p@db/s", "postgresql://u@db:5433/s", "pgsql://db/s"):
        assert database_settings("DATABASE_URL", url)["ENGINE"] == "django.db.backends.postgresql"
    for url in ("sqlite:///x.db", "mysql://u@db/s", "db.internal/spanproof", ""):
        with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must be a PostgreSQL URL"):
            database_settings("DATABASE_URL", url)


def test_the_embedded_servers_sizes_are_checked_by_name() -> None:
    assert server_settings({"SPANPROOF_PG_SHARED_BUFFERS": "256MB"})["shared_buffers"] == "256MB"
    for variable in ("SPANPROOF_PG_SHARED_BUFFERS", "SPANPROOF_PG_MAX_WAL_SIZE"):
        for bad in ("lots", "1gb", "1.5GB", "-1MB"):
            with pytest.raises(ImproperlyConfigured, match=f"{variable}='{bad}'"):
                server_settings({variable: bad})


def test_a_weak_key_is_refused_in_production_only(tmp_path: Path) -> None:
    production = {"DATABASE_URL": PRODUCTION_URL}
    for weak in ("x", "k" * 60, "django-insecure-" + secrets.token_urlsafe(50)):
        assert weak_key_reason(weak) is not None
        with pytest.raises(ImproperlyConfigured, match="DJANGO_SECRET_KEY is too weak"):
            secret_key_from({**production, "DJANGO_SECRET_KEY": weak}, tmp_path)
    strong = secrets.token_urlsafe(50)
    assert secret_key_from({**production, "DJANGO_SECRET_KEY": strong}, tmp_path) == strong
    # embedded (make run, the tests): whatever key is given is used
    assert secret_key_from({"DJANGO_SECRET_KEY": "x"}, tmp_path) == "x"


def test_earlier_secret_keys_come_from_the_environment(tmp_path: Path) -> None:
    """After a key rotation the old key still opens the audit-pack signing keys sealed
    under it (the 503 signing_key_unavailable says to set the fallbacks)."""
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB"))
    }
    old = secrets.token_urlsafe(50)
    clean.update(
        DATABASE_URL=PRODUCTION_URL,
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_SECRET_KEY_FALLBACKS=f" {old} ,",
        SPANPROOF_DATA=str(tmp_path),
    )
    result = subprocess.run(
        [sys.executable, "-c", "import config.settings as s; print(s.SECRET_KEY_FALLBACKS)"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str([old])
