""" "Latest" in a claim's history is written once: ``ClaimHistoryQuerySet`` (newest ``at``,
then the later insert). Its readers use it; a second spelling of the order is caught."""

from __future__ import annotations

import ast
import datetime
from pathlib import Path

import pytest
from django.utils import timezone

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import StateEvent, Verdict
from verifier.models.verdicts import LATEST_FIRST

ROOT = Path(__file__).resolve().parents[3]
# Being rewritten by other parts of issue 43: switched to the queryset when they land.
PENDING: set[str] = set()


def _verdict(claim, label: str) -> Verdict:
    return Verdict.objects.create(
        claim=claim,
        judge_model="m",
        judge_family="heuristic",
        prompt_version=1,
        label=label,
        confidence=0.5,
    )


@pytest.mark.django_db
def test_the_later_insert_is_latest_when_two_share_a_time(monkeypatch):
    same = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
    monkeypatch.setattr(timezone, "now", lambda: same)
    source = make_source(make_workspace())
    first, second = make_claim(source, "One claim."), make_claim(source, "Another claim.")
    rows = [_verdict(first, "entailed"), _verdict(first, "contradicted")]
    rows.append(_verdict(second, "abstained"))
    assert {v.at for v in rows} == {same}
    assert first.verdicts.latest_first().first() == rows[1]
    assert list(Verdict.objects.latest_first_by_claim()) == [rows[1], rows[0], rows[2]]
    assert set(Verdict.objects.latest_per_claim()) == {rows[1], rows[2]}
    assert StateEvent.objects.latest_first().query.order_by == LATEST_FIRST


def _spelled_orders() -> list[str]:
    """``order_by(...)`` calls that spell "-at" themselves, outside the models."""
    found = []
    for top in ("verifier", "review", "audit"):
        for path in sorted((ROOT / top).rglob("*.py")):
            name = str(path.relative_to(ROOT))
            if "/migrations/" in name or name in PENDING:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "order_by"
                    and any(isinstance(a, ast.Constant) and a.value == "-at" for a in node.args)
                ):
                    found.append(f"{name}:{node.lineno}")
    return found


def test_no_reader_spells_the_latest_first_order_itself():
    assert _spelled_orders() == []
