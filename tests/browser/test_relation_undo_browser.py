"""Chromium: a reviewer rejects a relation, clicks Undo on its row under "Decided by
reviewers", reads the flash, and finds the relation waiting for review again."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.factories import make_claim, make_source, make_user, make_workspace
from verifier.models import ClaimRelation
from verifier.services.relation_verify import relations_verify

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_reviewer_undoes_a_mis_click(browser_login, live_server):
    workspace = make_workspace("undo-walk")
    rita = make_user("rita-undo", workspace=workspace, role="reviewer")
    src = make_source(workspace)
    r = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text="Sediment settles where the current slows."),
        to_claim=make_claim(src, text="Salt marsh grasses trap silt at high tide."),
        kind="supports",
        confidence=0.6,
    )
    relations_verify(workspace=workspace, relations=[r], judge=None)
    page = browser_login(rita)
    page.goto(live_server.url + "/review/relations/")
    waiting = page.locator(f"#relation-{r.pk}")
    waiting.get_by_role("button", name=f"Reject relation {r.pk}:").click()
    expect(page.locator(f"#relation-{r.pk}")).to_have_count(0)
    decided = page.locator(f"#decided-{r.pk}")
    expect(decided).to_contain_text("Rejected")
    decided.get_by_role("button", name=f"Undo your decision on relation {r.pk}:").click()
    expect(
        page.get_by_text(f"Undone: your decision on relation {r.pk} is withdrawn")
    ).to_be_visible()
    expect(page.locator(f"#relation-{r.pk}")).to_have_count(1)
    expect(page.locator(f"#decided-{r.pk}")).to_have_count(0)
    r.refresh_from_db()
    assert (r.needs_review, r.verification_level, r.reviewed_by) == (True, "srmkg_reject", None)
