"""No import cycles between first-party modules.

The source is read with ``ast`` (nothing is imported; the edges come from
``tests.test_import_contracts.imports_of``), so every import counts: at module level,
inside functions and under ``if TYPE_CHECKING:``. An import inside a function that only
hides a cycle is still a cycle here: two modules that need each other are one module, or a
third module (an interface both use) is missing.

The graph's nodes are the modules of ``verifier``, ``review``, ``audit`` and ``config``
(migrations excluded: Django loads them by path, nothing imports them); an edge
``a -> b`` is an import in ``a`` of the module ``b`` (``from b import name``) or of ``b.c``
when ``c`` is a module. A cycle is reported as the chain of modules, with the line of each
import.

A cycle that cannot be broken yet goes in ``EXCEPTIONS`` (the sorted modules of its
strongly connected component) with the reason; an exception that no longer occurs fails
the test, so the list only shrinks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import pairwise
from pathlib import Path
from textwrap import dedent
from typing import Final

from tests.test_import_contracts import FIRST_PARTY, ROOT, _module_name, imports_of

Graph = dict[str, dict[str, int]]  # module -> {imported module: line of the first import}

# sorted modules of a strongly connected component -> why it stays. Empty: none is excused.
EXCEPTIONS: Final[dict[tuple[str, ...], str]] = {}


def import_graph(root: Path = ROOT) -> Graph:
    """The first-party import graph under ``root``."""
    graph: Graph = {}
    for top in FIRST_PARTY:
        if not (root / top).is_dir():
            continue
        for path in sorted((root / top).rglob("*.py")):
            if "migrations" in path.relative_to(root).parts:
                continue
            edges = graph.setdefault(_module_name(root, path), {})
            for target, line in imports_of(root, path):
                if target.split(".")[0] in FIRST_PARTY:
                    edges.setdefault(target, line)
    for edges in graph.values():
        for target in [t for t in edges if t not in graph]:
            del edges[target]  # a name that is not a module of ours (e.g. a missing one)
    return graph


def strongly_connected(graph: Graph) -> list[tuple[str, ...]]:
    """The components of more than one module (or a module that imports itself), each as
    its sorted modules, in sorted order (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[tuple[str, ...]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1 or node in graph[node]:
                    out.append(tuple(sorted(members)))
    return sorted(out)


def a_cycle(graph: Graph, component: Iterable[str]) -> list[str]:
    """One shortest cycle through the component's first module, as ``a:line -> b ...``."""
    members = set(component)
    first = min(members)
    parents: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node]):
                if child not in members or child in parents:
                    continue
                parents[child] = node
                if child == first:
                    following = []
                    break
                following.append(child)
            if first in parents:
                break
        frontier = following
    chain = [first]
    while len(chain) == 1 or chain[-1] != first:
        chain.append(parents[chain[-1]])
    chain.reverse()
    return [f"{a}:{graph[a][b]}" for a, b in pairwise(chain)] + [first]


def cycles(root: Path = ROOT) -> dict[tuple[str, ...], str]:
    """{component: one of its cycles, printed}."""
    graph = import_graph(root)
    return {c: " -> ".join(a_cycle(graph, c)) for c in strongly_connected(graph)}


def test_no_import_cycles():
    found = cycles()
    unexcused = [f"{len(c)} modules: {path}" for c, path in found.items() if c not in EXCEPTIONS]
    assert unexcused == [], "import cycles:\n" + "\n".join(unexcused)
    stale = sorted(set(EXCEPTIONS) - set(found))
    assert stale == [], f"exceptions that no longer occur (remove them): {stale}"


def test_the_checker_finds_a_cycle_hidden_in_a_function(tmp_path):
    """A synthetic tree: a -> b at module level, b -> a inside a function (a cycle);
    c -> d -> e (none); f imports itself through a package-relative import."""
    files = {
        "verifier/__init__.py": "",
        "verifier/a.py": "from verifier.b import run\n",
        "verifier/b.py": dedent(
            """\
            import json

            def run():
                from verifier import a
            """
        ),
        "verifier/c.py": "import verifier.d\n",
        "verifier/d.py": "from verifier.e import x\n",
        "verifier/e.py": "x = 1\n",
        "verifier/pkg/__init__.py": "",
        "verifier/pkg/f.py": "from . import f\n",
        "verifier/migrations/0001_initial.py": "from verifier import a\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")

    assert cycles(tmp_path) == {
        ("verifier.a", "verifier.b"): "verifier.a:1 -> verifier.b:4 -> verifier.a",
        ("verifier.pkg.f",): "verifier.pkg.f:1 -> verifier.pkg.f",
    }
