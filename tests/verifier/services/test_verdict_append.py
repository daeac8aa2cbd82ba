"""The one writer of a model's verdict row: its rules, and that no second copy appears."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.factories import make_claim
from verifier.services.binding import claim_bind
from verifier.services.verdicts import (
    NOTE_MAX_CHARS,
    verdict_append,
    verdict_build,
    verdicts_append,
)

ROOT = Path(__file__).resolve().parents[3]
QUOTE = "Norway closed several reef areas to trawling in 1999."


@pytest.mark.django_db
def test_a_verdict_row_is_cut_clamped_and_abstains_without_a_span(coral):
    claim = make_claim(coral, QUOTE)
    binding = claim_bind(claim=claim, quote=QUOTE).binding
    assert binding is not None
    bound = verdict_append(
        claim=claim,
        binding=binding,
        judge_model="m" * 300,
        judge_family="f" * 300,
        prompt_version=3,
        label="entailed",
        confidence=1.7,
        note="n" * (NOTE_MAX_CHARS + 50),
    )
    bound.refresh_from_db()
    assert (len(bound.judge_model), len(bound.judge_family), len(bound.note)) == (
        200,
        100,
        NOTE_MAX_CHARS,
    )
    assert (bound.label, bound.confidence) == ("entailed", 1.0)

    unbound = verdict_build(
        claim=claim,
        binding=None,
        judge_model="m",
        judge_family="f",
        prompt_version=1,
        label="entailed",
        confidence=-0.2,
        note=None,
    )
    (stored,) = verdicts_append(verdicts=[unbound])
    stored.refresh_from_db()
    assert (stored.label, stored.confidence, stored.note) == ("abstained", 0.0, "")


def _verdict_writers() -> list[str]:
    """Modules that build a ``Verdict(...)`` or call ``Verdict.objects.create/bulk_create``."""
    found = []
    for top in ("verifier", "review", "audit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                direct = isinstance(func, ast.Name) and func.id == "Verdict"
                via_manager = (
                    isinstance(func, ast.Attribute)
                    and func.attr in {"create", "bulk_create"}
                    and isinstance(func.value, ast.Attribute)
                    and func.value.attr == "objects"
                    and isinstance(func.value.value, ast.Name)
                    and func.value.value.id == "Verdict"
                )
                if direct or via_manager:
                    found.append(str(path.relative_to(ROOT)))
    return sorted(set(found))


def test_model_verdicts_are_written_in_one_place():
    """A judge's verdict row is shaped only by ``verifier/services/verdicts.py``; the review
    services write a person's verdicts (reviewer, decision notes) and are the only other."""
    assert _verdict_writers() == ["review/services.py", "verifier/services/verdicts.py"]
