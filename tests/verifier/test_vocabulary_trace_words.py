"""Every step a trace writer records, every fact it records beside a step and every field
of its judge has words in the one vocabulary (auditor walk: the trace page showed
``vector_search_and_load``, ``claims:``, ``model:`` as they are stored).

The names are read from the writers' source, so a new step (``steps.step("x")``,
``maybe_step(steps, "x")``, a retrieval's ``run.mark("x", t)``) without a label fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from verifier import vocabulary
from verifier.retrieval_ranking import VerificationPolicy
from verifier.scoring.quality import QUALITY_CLASSES

ROOT = Path(__file__).resolve().parents[2]
WRITERS = sorted((ROOT / "verifier" / "services").glob("*.py"))


def _name_of(node: ast.expr) -> str | None:
    """A step's name as written: a string, or an f-string's leading text ("chunk ")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value.strip() + " 1"  # a numbered step
    return None


def _step_calls() -> list[tuple[str, ast.Call]]:
    """(file, call) of every call that names a trace step."""
    found = []
    for path in WRITERS:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            named = isinstance(func, ast.Attribute) and func.attr in ("step", "mark")
            passed = isinstance(func, ast.Name) and func.id == "maybe_step"
            if (named and node.args) or (passed and len(node.args) > 1):
                found.append((path.name, node))
    return found


def _step_names() -> set[tuple[str, str]]:
    """(file, step name); a name that cannot be read is listed as ``?<its source>``. A
    name passed on as a variable (``maybe_step`` handing its ``name`` to ``step``) is
    the caller's, read where it is written."""
    names = set()
    for where, call in _step_calls():
        arg = call.args[1] if isinstance(call.func, ast.Name) else call.args[0]
        if isinstance(arg, ast.Name):
            continue
        name = _name_of(arg)
        names.add((where, name if name is not None else f"?{ast.unparse(arg)}"))
    return names


def _detail_keys() -> set[tuple[str, str]]:
    """The facts a step records: its call's keywords, and what its block adds to the
    yielded ``detail`` (``detail["x"] = ...``, ``detail.update(x=...)``)."""
    keys = {(w, k.arg) for w, call in _step_calls() for k in call.keywords if k.arg}
    for path in WRITERS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                target = node.value
                if isinstance(target, ast.Name) and target.id == "detail":
                    key = node.slice
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        keys.add((path.name, key.value))
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "update"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "detail"
            ):
                keys.update((path.name, k.arg) for k in node.keywords if k.arg)
    return keys


def _judge_keys() -> set[tuple[str, str]]:
    """The fields of the ``judge=`` a door's trace records (``DoorTrace(judge={...})``)."""
    keys = set()
    for path in WRITERS:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "DoorTrace":
                for k in node.keywords:
                    if k.arg == "judge" and isinstance(k.value, ast.Dict):
                        keys.update(
                            (path.name, key.value)
                            for key in k.value.keys
                            if isinstance(key, ast.Constant)
                        )
    return keys


def _assert_worded(kind: str, code: str, where: str) -> None:
    found = vocabulary.term(kind, code)
    assert vocabulary.explanation(kind, code), (
        f"{where}: {kind} {code!r} has no entry in verifier/vocabulary.py"
    )
    assert found.label and "_" not in found.label, (kind, code)
    assert found.explanation.endswith("."), (kind, code)


def test_the_writers_are_found():
    """The scan sees the writers it is meant to (a scan that finds nothing proves nothing)."""
    names = {name for _w, name in _step_names()}
    assert {"seed", "vector_search_and_load", "ranking", "classify", "submit"} <= names
    assert {"import_transcript", "store_claim", "parse", "chunk 1"} <= names
    assert {"claims", "bound"} <= {key for _w, key in _detail_keys()}
    assert {"model", "family"} <= {key for _w, key in _judge_keys()}


@pytest.mark.parametrize(("where", "name"), sorted(_step_names()))
def test_every_step_a_writer_records_has_words(where, name):
    assert not name.startswith("?"), f"{where}: a step whose name cannot be read: {name[1:]}"
    _assert_worded("trace_step", name, where)


@pytest.mark.parametrize(("where", "key"), sorted(_detail_keys()))
def test_every_fact_a_step_records_has_words(where, key):
    _assert_worded("trace_step_detail", key, where)


@pytest.mark.parametrize(("where", "key"), sorted(_judge_keys()))
def test_every_field_of_a_traces_judge_has_words(where, key):
    _assert_worded("trace_judge", key, where)


def test_a_numbered_step_reads_as_its_base_with_its_number():
    assert vocabulary.label("trace_step", "chunk 12") == "Batch 12"
    assert vocabulary.explanation("trace_step", "chunk 12") == vocabulary.explanation(
        "trace_step", "chunk"
    )
    # an unknown step still reads as itself
    assert vocabulary.label("trace_step", "brand_new 3") == "Brand new 3"
    assert vocabulary.label("trace_step", "chunk three") == "Chunk three"


def test_every_field_of_a_retrieval_policy_has_words():
    for code in VerificationPolicy().to_dict():
        _assert_worded("retrieval_policy", code, "VerificationPolicy.to_dict")


def test_every_quality_class_has_words():
    for code in QUALITY_CLASSES:
        _assert_worded("quality", code, "verifier.scoring.quality.QUALITY_CLASSES")
    assert vocabulary.claim_filters_in_words({"quality": "weak"}) == "Quality: Weak"
