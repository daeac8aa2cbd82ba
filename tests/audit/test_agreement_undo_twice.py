"""The Quality page's κ counts only decisions no undo took back, by the state writer's rule
(``verifier.states.human_verdict_in_force``): each undo takes back the latest decision
before it that no earlier undo took back. A reviewer who changes their mind and then
presses undo twice has taken back both decisions — the Decisions page says "Undone" for
each, and neither may count as the reviewer's answer against the judge or another
reviewer."""

from __future__ import annotations

import pytest

from audit.selectors import reviewer_agreement
from review.selectors.decisions import review_decision_list, review_today
from review.services import review_decide, review_undo
from tests.factories import make_user
from tests.review.conftest import seen
from tests.verifier.calibrators.conftest import build_reviewed_workspace

pytestmark = pytest.mark.django_db


def _decide_twice_and_undo_both(claim, reviewer) -> None:
    for decision in ("supported", "contradicted"):
        review_decide(
            claim=claim, reviewer=reviewer, expected_version=seen(claim), decision=decision
        )
    review_undo(claim=claim, reviewer=reviewer)
    review_undo(claim=claim, reviewer=reviewer)


def test_two_undos_in_a_row_take_back_both_decisions(workspace):
    reviewed = build_reviewed_workspace(workspace, names=2, decided=1)
    before = reviewer_agreement(workspace=workspace).overall
    claim = reviewed.claims[("verbatim", 1)]  # not decided yet

    _decide_twice_and_undo_both(claim, reviewed.reviewer)

    # the Decisions page: both decisions undone, none stands
    rows = review_decision_list(
        workspace=workspace,
        day=review_today(),
        reviewer_id=reviewed.reviewer.pk,
        viewer=reviewed.reviewer,
        blind=False,
        page_number=None,
    ).rows
    mine = [row for row in rows if row.verdict.claim_id == claim.pk and row.answer != "Undo"]
    assert len(mine) == 2 and not any(row.stands for row in mine)
    # and the κ table does not count the claim as decided
    after = reviewer_agreement(workspace=workspace).overall
    assert (after.decisions, after.agreement.pairs) == (before.decisions, before.agreement.pairs)


def test_a_decision_taken_back_by_a_second_undo_is_no_reviewer_pair(workspace):
    reviewed = build_reviewed_workspace(workspace, names=2, decided=1)
    claim = reviewed.claims[("verbatim", 1)]  # not decided yet
    _decide_twice_and_undo_both(claim, reviewed.reviewer)
    second = make_user("rex", workspace=workspace, role="reviewer")
    review_decide(claim=claim, reviewer=second, expected_version=seen(claim), decision="supported")

    agreement = reviewer_agreement(workspace=workspace)
    # only rex's decision is in effect: no claim decided by two reviewers
    assert agreement.between_reviewers.pairs == 0
