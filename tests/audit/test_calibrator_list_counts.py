"""The calibrators page says how far the reviewers' decisions are from the next fit: its
empty state said "decisions are collected until there are 50" whatever had been
decided, and a workspace with calibrators could not tell when the next one comes.
"Not stated by the source" decisions are not counted (a fit does not learn from them)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.verifier.calibrators.conftest import (
    REVIEWERS_SAY,
    build_reviewed_workspace,
    pin_heuristic,
)
from verifier.services.judge_calibrators import judge_calibrator_fit

pytestmark = pytest.mark.django_db


def test_the_list_counts_the_decisions_towards_the_next_fit(admin_client_ws, workspace, settings):
    pin_heuristic(settings)

    def say(kind: str, i: int) -> str:
        return "not_stated" if kind == "unrelated" else REVIEWERS_SAY[kind]

    build_reviewed_workspace(workspace, names=6, decided=6, reviewers_say=say)  # 24 + 6
    url = reverse("audit:calibrators")
    page = admin_client_ws.get(url).content.decode()
    assert (
        "No calibrator yet: reviewers have taken 24 “supported” or “contradicted” decisions; "
        "one is proposed at 50." in page
    )

    assert judge_calibrator_fit(workspace=workspace).row is not None
    page = admin_client_ws.get(url).content.decode()
    assert 'id="no-calibrator"' not in page
    assert '<span id="new-decisions">0 so far</span>' in page


def test_a_calibrator_below_the_floor_says_what_it_needs(admin_client_ws, workspace, settings):
    """Its page said only why it could not be activated, not what would let one be."""
    pin_heuristic(settings)
    build_reviewed_workspace(
        workspace,
        names=6,
        decided=6,
        reviewers_say=lambda kind, i: "supported" if i % 10 < 4 else "contradicted",
    )
    row = judge_calibrator_fit(workspace=workspace).row
    assert row is not None and row.params["supported_threshold"] is None
    page = admin_client_ws.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    assert "never reaches the floor (0.88) on 30 decisions" in page
    needs = page.split('id="calibrator-needs">')[1].split("</p>")[0]
    assert "even with every call right that takes 20 of them" in needs
    assert "it learned from 20 “supported” decisions" in needs
    assert "proposed after 50 new decisions (0 so far)" in needs
    assert "Activate…" not in page
