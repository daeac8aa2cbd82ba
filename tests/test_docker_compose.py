"""docker-compose.yml is consistent with the app (no Docker engine needed: the file is
read as YAML): the app never connects as the PostgreSQL superuser, the roles it connects
as are the ones the init script makes (the embedded server's), and web sees the audit
packs the worker writes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

import yaml

from config.embedded_postgres import APP_ROLE, DATABASE_NAME, OWNER_ROLE

ROOT: Final = Path(__file__).resolve().parent.parent
APP_SERVICES: Final = ("web", "worker", "beat")


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _url_user_and_database(url: str) -> tuple[str, str]:
    match = re.fullmatch(r"postgres://([^:@]+):[^@]+@db:5432/(\w+)", url)
    assert match, url
    return match.group(1), match.group(2)


def test_the_app_connects_as_the_runtime_role_and_migrates_as_the_owner() -> None:
    compose = _compose()
    db = compose["services"]["db"]
    superuser = db["environment"].get("POSTGRES_USER", "postgres")
    init_dir = next(v.split(":")[0] for v in db["volumes"] if ":/docker-entrypoint-initdb.d" in v)
    script = "\n".join(p.read_text() for p in sorted((ROOT / init_dir).glob("*.sql")))
    for name in APP_SERVICES:
        env = compose["services"][name]["environment"]
        app_user, database = _url_user_and_database(env["DATABASE_URL"])
        owner_user, owner_database = _url_user_and_database(env["DATABASE_OWNER_URL"])
        assert (app_user, owner_user) == (APP_ROLE, OWNER_ROLE), name
        assert database == owner_database == DATABASE_NAME
        assert superuser not in (app_user, owner_user)
    # the init script makes both roles, neither a superuser, and the database the owner's
    assert re.search(rf"CREATE ROLE {OWNER_ROLE} LOGIN CREATEDB NOSUPERUSER NOCREATEROLE", script)
    assert re.search(rf"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE", script)
    assert f"CREATE DATABASE {DATABASE_NAME} OWNER {OWNER_ROLE}" in script
    assert "CREATE EXTENSION IF NOT EXISTS vector" in script
    # its passwords are the ones the URLs carry
    for variable in ("SPANPROOF_DB_OWNER_PASSWORD", "SPANPROOF_DB_APP_PASSWORD"):
        assert "\\getenv" in script and variable in script
        assert variable in db["environment"][variable]
        assert (
            variable
            in compose["services"]["web"]["environment"][
                "DATABASE_URL" if "APP" in variable else "DATABASE_OWNER_URL"
            ]
        )


def test_web_and_workers_share_the_audit_pack_folder() -> None:
    compose = _compose()
    assert "audit-packs" in compose["volumes"]
    for name in APP_SERVICES:
        service = compose["services"][name]
        folder = service["environment"]["SPANPROOF_AUDIT_PACK_DIR"]
        assert f"audit-packs:{folder}" in service["volumes"], name
