"""Retry-After on the database's 503s is one number, written once.

The cancelled statement (``config.statement_timeout``) and the unreachable database
(``verifier.outage``) both answer 503 with ``Retry-After``; two constants that happened
to agree could drift apart. The source is read with ``ast`` (nothing is imported)."""

from __future__ import annotations

import ast
from pathlib import Path

from config import statement_timeout
from verifier import outage

ROOT = Path(__file__).resolve().parents[3]
NAME = "RETRY_AFTER_SECONDS"


def _modules_assigning(name: str) -> list[str]:
    found = []
    for top in ("config", "verifier", "review", "audit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                targets = (
                    [node.target]
                    if isinstance(node, ast.AnnAssign)
                    else node.targets
                    if isinstance(node, ast.Assign)
                    else []
                )
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found.append(str(path.relative_to(ROOT)))
    return found


def test_retry_after_seconds_is_defined_in_one_module() -> None:
    assert _modules_assigning(NAME) == ["config/statement_timeout.py"]


def test_outage_answers_with_the_same_retry_after() -> None:
    assert outage.RETRY_AFTER_SECONDS == statement_timeout.RETRY_AFTER_SECONDS
