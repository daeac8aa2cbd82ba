"""Import contracts: dependencies point one way.

The source is read with ``ast`` (nothing is imported), so every import counts: at module
level, inside functions and under ``if TYPE_CHECKING:``. The rules:

1. ``engine-not-console``: no module under ``verifier/`` imports ``review`` or ``audit``
   (the engine and the API never depend on the consoles).
2. ``pure-core``: the pure cores never import ``django`` or ``rest_framework``, and import
   from this project only other pure modules (so Django cannot come in through the back
   door of a helper either).
3. ``selectors-read-only``: a ``selectors`` module or package never imports a
   ``services`` module or package (reads do not call writers).

A known violation that cannot be fixed without a behaviour change goes in
``EXCEPTIONS`` with a comment saying why; an exception that no longer matches a finding
fails the test, so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from textwrap import dedent
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
FIRST_PARTY: Final = ("verifier", "review", "audit", "config")

CONSOLE_PACKAGES: Final = ("review", "audit")
FRAMEWORKS: Final = ("django", "rest_framework")
# The pure modules, from the one list in pyproject.toml ([tool.spanproof] pure-modules).
PURE: Final[tuple[str, ...]] = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["spanproof"][
        "pure-modules"
    ]
)

# (rule, importing module, imported module) -> why it stays. Empty: nothing is excused.
EXCEPTIONS: Final[dict[tuple[str, str, str], str]] = {}


@dataclass(frozen=True, order=True)
class Finding:
    rule: str
    module: str
    target: str
    line: int

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.rule, self.module, self.target)

    def __str__(self) -> str:
        return f"[{self.rule}] {self.module}:{self.line} imports {self.target}"


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(root: Path, dotted: str) -> bool:
    base = root.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def imports_of(root: Path, path: Path) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import statement in ``path``. ``from a import b``
    names ``a.b`` when that is a module of ours, else ``a``; relative imports are resolved."""
    module = _module_name(root, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*base_parts, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                yield (candidate if _is_module(root, candidate) else base), node.lineno


def _source_files(root: Path) -> Iterator[Path]:
    for top in FIRST_PARTY:
        if (root / top).is_dir():
            yield from sorted((root / top).rglob("*.py"))


def findings(root: Path = ROOT) -> list[Finding]:
    """Every import in the first-party source that breaks one of the three rules."""
    out: set[Finding] = set()
    for path in _source_files(root):
        module = _module_name(root, path)
        parts = module.split(".")
        for target, line in imports_of(root, path):
            top = target.split(".")[0]
            if _within(module, "verifier") and top in CONSOLE_PACKAGES:
                out.add(Finding("engine-not-console", module, target, line))
            if any(_within(module, pure) for pure in PURE):
                first_party_impure = top in FIRST_PARTY and not any(
                    _within(target, pure) for pure in PURE
                )
                if top in FRAMEWORKS or first_party_impure:
                    out.add(Finding("pure-core", module, target, line))
            if "selectors" in parts and "services" in target.split("."):
                out.add(Finding("selectors-read-only", module, target, line))
    return sorted(out)


def test_the_pure_modules_exist():
    """The contract names real modules (a rename must update it, not silently drop it)."""
    missing = [name for name in PURE if not _is_module(ROOT, name)]
    assert missing == []


def contributing_pure_modules(text: str) -> list[str]:
    """The modules CONTRIBUTING.md's "Pure modules" table names: the first cell of each row,
    a path in backticks (``verifier/binding/``, ``verifier/states.py``), as a dotted name."""
    section = text.split("\n## Pure modules\n", 1)[1].split("\n## ", 1)[0]
    names = []
    for line in section.splitlines():
        cell = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if cell:
            path = cell.group(1).rstrip("/").removesuffix(".py")
            names.append(path.replace("/", "."))
    return names


def test_contributing_names_exactly_the_pure_modules():
    named = contributing_pure_modules((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8"))
    assert len(named) == len(set(named)), "a module is named twice"
    assert sorted(named) == sorted(PURE)


def test_dependencies_point_one_way():
    found = findings()
    unexcused = [str(f) for f in found if f.key not in EXCEPTIONS]
    assert unexcused == [], "\n".join(unexcused)
    stale = sorted(set(EXCEPTIONS) - {f.key for f in found})
    assert stale == [], f"exceptions that no longer occur (remove them): {stale}"


def test_the_checker_finds_each_kind_of_violation(tmp_path):
    """A synthetic tree with one violation of each rule, plus imports that are allowed."""
    files = {
        "verifier/__init__.py": "",
        "verifier/models.py": "from django.db import models\n",
        "verifier/services/__init__.py": "",
        "verifier/services/writes.py": "from audit import views\n",
        "verifier/selectors/__init__.py": "",
        "verifier/selectors/reads.py": dedent(
            """\
            from verifier.models import Claim
            def f():
                from verifier.services import writes
            """
        ),
        "verifier/binding/__init__.py": "",
        "verifier/binding/core.py": dedent(
            """\
            import re
            from . import helpers
            def g():
                from django.conf import settings
            """
        ),
        "verifier/binding/helpers.py": "from ..selectors import reads\n",
        "audit/__init__.py": "",
        "audit/views.py": "from verifier.services import writes\nimport django\n",
        "audit/selectors.py": "import audit.services\n",
        "audit/services.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")

    assert [str(f) for f in findings(tmp_path)] == [
        "[engine-not-console] verifier.services.writes:1 imports audit.views",
        "[pure-core] verifier.binding.core:4 imports django.conf",
        "[pure-core] verifier.binding.helpers:1 imports verifier.selectors.reads",
        "[selectors-read-only] audit.selectors:1 imports audit.services",
        "[selectors-read-only] verifier.selectors.reads:3 imports verifier.services.writes",
    ]
