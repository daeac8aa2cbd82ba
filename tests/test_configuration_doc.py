"""The environment the app reads and the table that documents it (docs/configuration.md)
agree both ways, and a malformed value stops start-up with the variable's name.

The source is read with ``ast``: an environment read is a call such as ``env.int("X", …)``,
``os.environ.get("X")``, ``environ.get("X", …)`` or ``Env().int("X")`` and a subscript
``os.environ["X"]``, plus the variables the judge and extractor registries read as
``PREFIX + key`` (``judge_config_from_env``, ``extractor_config_from_env``).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from verifier.extractors.registry import ENV_PREFIX as EXTRACTOR_PREFIX
from verifier.judges.registry import _ENV_KEYS as JUDGE_KEYS
from verifier.judges.registry import ENV_PREFIX as JUDGE_PREFIX
from verifier.model_config import CHAT_ENV_KEYS

ROOT: Final = Path(__file__).resolve().parent.parent
DOC: Final = ROOT / "docs" / "configuration.md"
PACKAGES: Final = ("config", "verifier", "review", "audit")
# The app's own variables: these prefixes. (Third-party ones it only sets, such as
# HF_HUB_OFFLINE, are not configuration.)
VARIABLE: Final = re.compile(r"^(?:SPANPROOF|DJANGO|DATABASE|CELERY)_[A-Z0-9_]*[A-Z0-9]$")
READERS: Final = frozenset({"get", "str", "int", "float", "bool", "path", "list", "getenv"})


def _receiver(node: ast.expr) -> str:
    return ast.unparse(node).lower()


def _reads_in(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr in READERS and "env" in _receiver(node.func.value):
                key = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
            if node.func.id.startswith("env_"):  # settings' helpers: env_list("X")
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and "environ" in _receiver(node.value):
            key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
    return names


def variables_read() -> set[str]:
    names: set[str] = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                names |= _reads_in(ast.parse(path.read_text(), str(path)))
    names |= {JUDGE_PREFIX + key.upper() for key in JUDGE_KEYS}
    names |= {EXTRACTOR_PREFIX + key.upper() for key in CHAT_ENV_KEYS}
    return {name for name in names if VARIABLE.match(name)}


def variables_documented() -> set[str]:
    """Every full variable name in backticks in the table's rows."""
    rows = [line for line in DOC.read_text().splitlines() if line.startswith("| `")]
    assert len(rows) > 20, "the configuration table was not found"
    names: set[str] = set()
    for row in rows:
        for token in re.findall(r"`\$?([A-Z][A-Z0-9_]*)`", row):
            if VARIABLE.match(token):
                names.add(token)
        # "SPANPROOF_JUDGE_BACKEND ... `_MODEL`, `_API_KEY`": the row's prefix, shortened
        first = re.match(r"\| `((?:SPANPROOF_JUDGE|SPANPROOF_EXTRACTOR)_)", row)
        if first:
            names |= {first.group(1) + s for s in re.findall(r"`_([A-Z][A-Z0-9_]*)`", row)}
    return names


def test_the_scanner_finds_reads_of_each_form() -> None:
    code = (
        "import os\nfrom environs import Env\nenv = Env()\n"
        "a = env.int('SPANPROOF_A', 1)\nb = os.environ.get('SPANPROOF_B')\n"
        "c = os.environ['DJANGO_C']\nd = Env().float('SPANPROOF_D', 2)\n"
        "e = environ.get('SPANPROOF_E', '1GB')\nos.environ.setdefault('SPANPROOF_F', '1')\n"
        "g = getattr(settings, 'SPANPROOF_G', None)\nh = env_list('SPANPROOF_H')\n"
    )
    assert _reads_in(ast.parse(code)) == {
        "SPANPROOF_A",
        "SPANPROOF_B",
        "DJANGO_C",
        "SPANPROOF_D",
        "SPANPROOF_E",
        "SPANPROOF_H",
    }


def test_the_known_reads_are_found() -> None:
    read = variables_read()
    for name in (
        "DATABASE_URL",
        "DJANGO_HTTPS",
        "SPANPROOF_INGEST_SHARDS",
        "SPANPROOF_JUDGE_TEMPERATURE",
        "SPANPROOF_EXTRACTOR_TIMEOUT",
        "SPANPROOF_QUERY_EMBED_THREADS",
        "SPANPROOF_PG_SHARED_BUFFERS",
        "SPANPROOF_WEB_WORKERS",
        "SPANPROOF_WEBHOOK_ALLOWED_NETWORKS",
    ):
        assert name in read, name


def test_every_variable_read_is_documented() -> None:
    missing = sorted(variables_read() - variables_documented())
    assert not missing, f"read but not in docs/configuration.md: {missing}"


def test_every_documented_variable_is_read() -> None:
    unread = sorted(variables_documented() - variables_read())
    assert not unread, f"in docs/configuration.md but read nowhere: {unread}"


# --- a malformed value stops start-up, naming the variable ------------------------------

PRODUCTION: Final = {
    # an external database, so loading the settings starts no embedded server
    "DATABASE_URL": "postgres://spanproof:pw@db.invalid:5432/spanproof",
    "DJANGO_SECRET_KEY": "test-only-" + "k" * 50,
}


def _load_settings(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SPANPROOF_", "DATAB"))
    }
    clean.update(PRODUCTION, SPANPROOF_DATA=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-c", "import config.settings as s\n" + code],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SPANPROOF_INGEST_SHARDS", "two"),  # int
        ("SPANPROOF_REVIEW_LEASE_SECONDS", "15m"),  # int
        ("DJANGO_HTTPS", "maybe"),  # bool (was read as off)
        ("SPANPROOF_WEBHOOK_ALLOW_HTTP", "sure"),  # bool
        ("SPANPROOF_WEBHOOK_TIMEOUT", "soon"),  # float
        ("SPANPROOF_WEBHOOK_PORTS", "443,ssh"),  # ports
        ("SPANPROOF_WEBHOOK_PORTS", "70000"),
        ("SPANPROOF_LOGIN_LOCKOUT_MINUTES", "a while"),  # float
        ("SPANPROOF_DB_PREPARE_THRESHOLD", "often"),  # int, empty allowed
        ("SPANPROOF_JUDGE_TEMPERATURE", "hot"),  # the judge registry's reader
        ("SPANPROOF_JUDGE_JSON_MODE", "maybe"),
        ("SPANPROOF_EXTRACTOR_TIMEOUT", "never"),  # the extractor registry's reader
    ],
)
def test_a_malformed_value_stops_start_up_naming_the_variable(
    tmp_path: Path, variable: str, value: str
) -> None:
    result = _load_settings(tmp_path, "print('loaded')", **{variable: value})
    assert result.returncode != 0 and "loaded" not in result.stdout
    last = result.stderr.strip().splitlines()[-1]
    assert variable in last, result.stderr


def test_well_formed_values_take_effect(tmp_path: Path) -> None:
    code = (
        "print(s.SPANPROOF_INGEST_SHARDS, s.HTTPS, s.SPANPROOF_WEBHOOK_TIMEOUT, "
        "s.DATABASES['default']['OPTIONS']['prepare_threshold'], s.ALLOWED_HOSTS, "
        "s.SPANPROOF_JUDGE['temperature'], s.SPANPROOF_JUDGE['json_mode'], "
        "s.SPANPROOF_EXTRACTOR['timeout'], s.AXES_ENABLED)"
    )
    result = _load_settings(
        tmp_path,
        code,
        SPANPROOF_INGEST_SHARDS=" 4 ",
        DJANGO_HTTPS="off",
        SPANPROOF_WEBHOOK_TIMEOUT="2.5",
        SPANPROOF_DB_PREPARE_THRESHOLD="",
        DJANGO_ALLOWED_HOSTS="a.example, b.example,",
        SPANPROOF_JUDGE_TEMPERATURE="0.3",
        SPANPROOF_JUDGE_JSON_MODE="OFF",
        SPANPROOF_EXTRACTOR_TIMEOUT="7",
        SPANPROOF_LOGIN_LOCKOUT="no",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "4 False 2.5 None ['a.example', 'b.example'] 0.3 False 7.0 False"
    )


def test_the_docs_name_the_default_judge_the_registry_has() -> None:
    from verifier.judges.registry import DEFAULT_BACKEND

    row = next(line for line in DOC.read_text().splitlines() if "`SPANPROOF_JUDGE_BACKEND`" in line)
    assert f"`{DEFAULT_BACKEND}` (offline default" in row
    nli_card = (ROOT / "docs" / "spanproof-nli.md").read_text()
    assert f"the default is `{DEFAULT_BACKEND}`" in nli_card
