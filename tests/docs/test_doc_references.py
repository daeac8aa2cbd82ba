"""What the README and docs/*.md tell a reader to run or call exists.

Each check is a scanner over the docs' text and a lookup in the code, so that renaming a
command, a flag, a module, a variable, a file or an API route without the docs fails here
rather than in a newcomer's shell:

* ``manage.py <command> [--flag …]``: the command exists and takes each flag;
* ``python -m <module> [--flag …]``: the module exists and names each flag;
* ``SPANPROOF_*``, ``DJANGO_*``, ``DATABASE_*``, ``CELERY_*``: the app reads it from the
  environment, or it is a Django setting, or ``docker-compose.yml`` reads it;
* a path in backticks under one of the project's folders exists;
* ``/connect/v1/…`` and ``/worker/…`` routes (with their method, where one is named) are
  in the OpenAPI schema.

docs/configuration.md's table is held to the code both ways by
``tests/test_configuration_doc.py``; this file covers every other mention.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Final

import pytest

from tests.test_configuration_doc import VARIABLE, variables_read

ROOT: Final = Path(__file__).resolve().parent.parent.parent
DOCS: Final = (
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").glob("*.md")),
)
FENCE: Final = re.compile(r"^```.*?^```", re.M | re.S)
FLAG: Final = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
FOLDERS: Final = (
    "verifier/",
    "audit/",
    "review/",
    "config/",
    "docs/",
    "tests/",
    "bench/",
    "docker/",
    "static/",
    "templates/",
)
PACKAGES: Final = frozenset(folder.rstrip("/") for folder in FOLDERS)
# A route and the method before it: "POST /connect/v1/sources", "`/connect/v1/claims`".
ROUTE: Final = re.compile(
    r"(?:\b(GET|POST|DELETE|PUT|PATCH)\s+)?(/(?:connect/v1|worker)/[\w{}<>./-]*)"
)
# Pages served beside the API that are not operations of its schema.
NOT_OPERATIONS: Final = frozenset({"/connect/v1/docs", "/connect/v1/schema", "/worker/console"})


def command_lines(text: str) -> Iterator[str]:
    """Each line of a fenced block, and each inline code span of the prose with its line
    breaks joined (a span may wrap: ``manage.py calibrate_srmkg --workspace W
    [--l2 1.0]``)."""
    for block in FENCE.findall(text):
        yield from block.splitlines()[1:-1]
    prose = FENCE.sub("", text)
    for span in re.findall(r"`([^`]+)`", prose):
        yield span.replace("\n", " ")


def invocations(text: str, program: str) -> Iterator[tuple[str, list[str]]]:
    """``(name, flags)`` for each ``<program> <name> …`` the text shows."""
    pattern = re.compile(re.escape(program) + r"\s+([A-Za-z_][\w.]*)(.*)")
    for line in command_lines(text):
        for match in pattern.finditer(line):
            rest = match.group(2).split("#")[0]  # a shell comment is not an argument
            yield match.group(1), FLAG.findall(rest)


def _doc_texts() -> list[tuple[str, str]]:
    return [(path.name, path.read_text()) for path in DOCS]


@cache
def _command_options() -> dict[str, frozenset[str]]:
    from django.core.management import get_commands, load_command_class

    options: dict[str, frozenset[str]] = {}
    for name, app in get_commands().items():
        parser = load_command_class(app, name).create_parser("manage.py", name)
        options[name] = frozenset(o for a in parser._actions for o in a.option_strings)
    return options


def unknown_management_calls(text: str) -> list[str]:
    options = _command_options()
    problems = []
    for name, flags in invocations(text, "manage.py"):
        if name not in options:
            problems.append(f"manage.py {name}: no such command")
            continue
        known = options[name]
        problems += [f"manage.py {name} {f}: no such option" for f in flags if f not in known]
    return problems


def unknown_module_calls(text: str) -> list[str]:
    problems = []
    for module, flags in invocations(text, "python -m"):
        module = module.rstrip(".")
        if module.split(".")[0] not in PACKAGES:
            continue  # pytest, pip: not the project's
        base = ROOT / module.replace(".", "/")
        source = base.with_suffix(".py")
        if not source.exists():
            source = base / "__main__.py"
        if not source.exists():
            problems.append(f"python -m {module}: no such module")
            continue
        code = source.read_text()
        problems += [
            f"python -m {module} {f}: not an argument it defines"
            for f in flags
            if f'"{f}"' not in code and f"'{f}'" not in code
        ]
    return problems


def unknown_variables(text: str) -> list[str]:
    from django.conf import settings

    compose = (ROOT / "docker-compose.yml").read_text()
    read = variables_read()
    named = set(re.findall(r"\b([A-Z][A-Z0-9_]*[A-Z0-9])\b", text))
    return sorted(
        name
        for name in named
        if VARIABLE.match(name)
        and name not in read
        and not hasattr(settings, name)
        and "${" + name not in compose
    )


def missing_paths(text: str) -> list[str]:
    paths = re.findall(r"`([\w./-]+)`", text)
    return sorted({p for p in paths if p.startswith(FOLDERS) and not (ROOT / p).exists()})


@cache
def _schema_paths() -> dict[str, frozenset[str]]:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {path: frozenset(m.upper() for m in ops) for path, ops in schema["paths"].items()}


def unknown_routes(text: str) -> list[str]:
    paths = _schema_paths()
    routes = {
        re.compile(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)) + "$"): methods
        for path, methods in paths.items()
    }
    problems = []
    for method, raw in ROUTE.findall(text):
        path = re.sub(r"<\w+>", "{id}", raw).rstrip("/.")
        if path in NOT_OPERATIONS:
            continue
        methods = [ms for rx, ms in routes.items() if rx.match(path)]
        if not methods and not method and any(p.startswith(path + "/") for p in paths):
            continue  # a family of routes: `/connect/v1/memory/...`
        if not methods:
            problems.append(f"{method} {path}: not in the OpenAPI schema".strip())
        elif method and not any(method in ms for ms in methods):
            problems.append(f"{method} {path}: the schema has no {method} there")
    return problems


CHECKS: Final = {
    "management commands": unknown_management_calls,
    "python -m modules": unknown_module_calls,
    "environment variables": unknown_variables,
    "paths": missing_paths,
    "API routes": unknown_routes,
}


@pytest.mark.parametrize("check", list(CHECKS))
def test_what_the_docs_name_exists(check: str) -> None:
    found = {name: CHECKS[check](text) for name, text in _doc_texts()}
    wrong = {name: problems for name, problems in found.items() if problems}
    assert not wrong, f"{check} the docs name that do not exist: {wrong}"


def test_each_check_finds_what_does_not_exist() -> None:
    """The scanners read every form the docs use, so a passing run means something."""
    text = (
        "Run `manage.py ingest docs/ --workspace demo --no-such-flag` or\n"
        "`manage.py calibrate_srmkg --workspace W [--min-samples 50]\n[--no-such-l3 1.0]`.\n"
        "```sh\n.venv/bin/python manage.py no_such_command --x\n"
        "python -m bench.no_such_bench\npython -m bench.rag_audit --no-such-flag\n```\n"
        "Set `SPANPROOF_NO_SUCH_SETTING`; see `verifier/no_such_module.py` and "
        "`POST /connect/v1/no-such-route`, `DELETE /connect/v1/claims`.\n"
    )
    assert unknown_management_calls(text) == [
        "manage.py no_such_command: no such command",  # fenced blocks are read first
        "manage.py ingest --no-such-flag: no such option",
        "manage.py calibrate_srmkg --no-such-l3: no such option",
    ]
    assert unknown_module_calls(text) == [
        "python -m bench.no_such_bench: no such module",
        "python -m bench.rag_audit --no-such-flag: not an argument it defines",
    ]
    assert unknown_variables(text) == ["SPANPROOF_NO_SUCH_SETTING"]
    assert missing_paths(text) == ["verifier/no_such_module.py"]
    assert unknown_routes(text) == [
        "POST /connect/v1/no-such-route: not in the OpenAPI schema",
        "DELETE /connect/v1/claims: the schema has no DELETE there",
    ]
    ok = (
        "`manage.py calibrate_srmkg --workspace W [--min-samples 50]\n[--dry-run]`, "
        "`SPANPROOF_DB_APP_PASSWORD`, `SPANPROOF_WORKER_TUNING`, `GET /connect/v1/claims`, "
        "`GET /connect/v1/audit-pack/jobs/<id>`, `/connect/v1/docs`"
    )
    for check in CHECKS.values():
        assert check(ok) == [], check.__name__
