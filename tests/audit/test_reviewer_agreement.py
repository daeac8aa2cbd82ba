"""The Quality page's "reviewers and the judge": Cohen's κ between reviewers and the
judge (overall, per judge model, per reason before the decision), between reviewers, and
the reviewer calibrators' curve — on real decisions of real judged claims."""

from __future__ import annotations

import re

import pytest

from audit.selectors import reviewer_agreement
from review.services import review_decide
from tests.factories import make_user
from tests.review.conftest import seen
from tests.verifier.calibrators.conftest import build_reviewed_workspace
from verifier.judges.heuristic import MODEL_ID as HEURISTIC
from verifier.scoring.agreement import cohen_kappa
from verifier.services.judge_calibrators import judge_calibrator_fit

pytestmark = pytest.mark.django_db


def test_cohen_kappa_by_hand():
    # 30 pairs: 10 agree supported, 10 agree contradicted, 10 (contradicted, supported)
    pairs = [("s", "s")] * 10 + [("c", "c")] * 10 + [("c", "s")] * 10
    agreement = cohen_kappa(pairs)
    # p_o = 2/3; p_e = (10·20 + 20·10) / 900 = 4/9; κ = (2/3 − 4/9) / (5/9) = 0.4
    assert (agreement.pairs, agreement.agreed, agreement.kappa) == (30, 20, 0.4)
    assert cohen_kappa([("s", "s")] * 3).kappa is None  # one answer throughout
    assert cohen_kappa([]).kappa is None


def test_the_quality_page_shows_agreement_and_the_curve(workspace, auditor_client):
    reviewed = build_reviewed_workspace(workspace, names=10, decided=10)
    second = make_user("rex", workspace=workspace, role="reviewer")
    for kind, i, decision in (
        ("verbatim", 0, "supported"),
        ("verbatim", 1, "supported"),
        ("number", 0, "contradicted"),
        ("added", 0, "supported"),  # the first reviewer said contradicted
    ):
        claim = reviewed.claims[(kind, i)]
        review_decide(claim=claim, reviewer=second, expected_version=seen(claim), decision=decision)
    judge_calibrator_fit(workspace=workspace)

    agreement = reviewer_agreement(workspace=workspace)
    overall = agreement.overall
    # reviewers vs the judge: verbatim agree (supported), number agree (contradicted),
    # added disagree (the judge said entailed); reworded and unrelated: no answer
    assert (overall.decisions, overall.judge_no_answer) == (50, 20)
    assert (overall.agreement.pairs, overall.agreement.agreed) == (30, 20)
    assert overall.agreement.kappa == 0.4
    assert [(r.label, r.decisions) for r in agreement.by_judge_model] == [(HEURISTIC, 50)]
    by_reason = {r.label: r for r in agreement.by_reason}
    assert by_reason["Judge undecided"].judge_no_answer == 20
    assert (
        by_reason["Span supports it (judge)"].agreement.kappa == 0.0
    )  # judge says supported to all 20
    assert by_reason["Contradicted by the span"].agreement.kappa is None  # all agree, one answer
    between = agreement.between_reviewers
    assert (between.pairs, between.agreed, between.kappa) == (4, 3, 0.5)
    (points,) = agreement.curves.values()
    # one decision per decided claim: the one its state rests on now
    assert [(p.version, p.decisions) for p in points] == [(1, 50)]
    assert points[0].abstention < points[0].judge_abstention

    body = auditor_client.get("/audit/quality/").content.decode()
    section = body[body.index('id="reviewer-agreement"') :]
    # decisions, of them not stated, the judge had answered, agreed, κ, no answer
    assert re.search(
        r"all decisions</th><td>50</td><td>0</td><td>30</td><td>20</td><td>0\.40</td><td>20</td>",
        section,
    )
    assert "4 claims decided by two reviewers, the same way on 3; κ 0.50" in section
    assert "judge_reviewers_disagree" in section
    assert re.search(r"<td>v1</td><td>50</td>", section)
    assert "/audit/calibrators/" not in section  # admins only


def test_an_undone_decision_no_longer_counts(workspace):
    from review.services import review_undo

    reviewed = build_reviewed_workspace(workspace)
    before = reviewer_agreement(workspace=workspace).overall.decisions
    claim = reviewed.undecided("verbatim")[0]
    review_decide(
        claim=claim, reviewer=reviewed.reviewer, expected_version=seen(claim), decision="supported"
    )
    assert reviewer_agreement(workspace=workspace).overall.decisions == before + 1
    review_undo(claim=claim, reviewer=reviewed.reviewer)
    assert reviewer_agreement(workspace=workspace).overall.decisions == before


def test_not_stated_decisions_count_as_disagreements(workspace, auditor_client):
    """A reviewer's "not stated by the source" is a decision like the others: it counts,
    and against the judge's answer (supported or contradicted) it is a disagreement."""

    def say(kind: str, i: int) -> str:
        if (kind, i) in {("verbatim", 0), ("verbatim", 1), ("number", 0), ("unrelated", 0)}:
            return "not_stated"
        return {
            "reworded": "supported",
            "verbatim": "supported",
            "number": "contradicted",
            "unrelated": "contradicted",
            "added": "contradicted",
        }[kind]

    reviewed = build_reviewed_workspace(workspace, names=4, decided=4, reviewers_say=say)
    second = make_user("rex", workspace=workspace, role="reviewer")
    claim = reviewed.claims[("verbatim", 0)]  # the first reviewer said not stated
    review_decide(claim=claim, reviewer=second, expected_version=seen(claim), decision="supported")

    overall = reviewer_agreement(workspace=workspace).overall
    # 20 decisions, 4 of them "not stated"; the judge abstained on reworded and unrelated (8)
    assert (overall.decisions, overall.not_stated, overall.judge_no_answer) == (20, 4, 8)
    # answered: verbatim (2 not stated vs supported, 2 agree), number (1 not stated vs
    # contradicted, 3 agree), added (4 contradicted vs supported): 5 of 12 agree.
    # p_o = 60/144; p_e = (2·8 + 7·4 + 3·0)/144 = 44/144; κ = 16/100
    assert (overall.agreement.pairs, overall.agreement.agreed) == (12, 5)
    assert overall.agreement.kappa == 0.16
    between = reviewer_agreement(workspace=workspace).between_reviewers
    assert (between.pairs, between.agreed) == (1, 0)  # not stated vs supported

    body = auditor_client.get("/audit/quality/").content.decode()
    section = body[body.index('id="reviewer-agreement"') :]
    assert re.search(
        r"all decisions</th><td>20</td><td>4</td><td>12</td><td>5</td><td>0\.16</td><td>8</td>",
        section,
    )
    assert "Of them, not stated by the source" in section
    assert "counts as a disagreement" in section
