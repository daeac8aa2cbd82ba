"""A reviewer calibrator is never used below its precision floor: the higher of the
state policy's confidence floor and the judges' entailment precision floor
(``verifier.selectors.calibrators.calibrator_precision_floor``). One fitted on reviewers
who disagree among themselves reaches no supported threshold: it is refused at
activation (console, service) and, should one be active anyway (activated under a lower
floor), the judging service never passes a verdict through it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.verifier.calibrators.conftest import build_reviewed_workspace, unjudged_claims
from verifier.judges import build_judge
from verifier.judges.metrics import ENTAIL_PRECISION_FLOOR
from verifier.judges.reading import judge_reading
from verifier.judges.reviewer_calibrator import fit_calibrator
from verifier.models import JudgeCalibrator, StateEvent, Verdict
from verifier.selectors.calibrators import (
    calibrator_decided_claims,
    calibrator_precision_floor,
    calibrators_in_use,
)
from verifier.selectors.judge_items import claims_judge_items
from verifier.services.judge_calibrators import (
    CalibratorRefused,
    judge_calibrator_activate,
    judge_calibrator_fit,
)
from verifier.services.judging import claims_judge
from verifier.state_policy import state_policy


def _split_reviewers(kind: str, i: int) -> str:
    """Reviewers who say supported for seven claims in ten of every kind."""
    return "supported" if i % 10 < 7 else "contradicted"


@pytest.fixture
def split(workspace):
    return build_reviewed_workspace(workspace, names=12, decided=10, reviewers_say=_split_reviewers)


def test_the_floor_is_the_higher_of_the_policy_and_the_judges_precision_floor():
    assert calibrator_precision_floor() == max(
        state_policy().confidence_floor, ENTAIL_PRECISION_FLOOR
    )
    assert calibrator_precision_floor() == pytest.approx(0.88)


def test_a_calibrator_below_the_floor_is_refused_and_never_used(split):
    heuristic = build_judge({"backend": "heuristic"})
    row = judge_calibrator_fit(workspace=split.workspace).row
    assert row.params["supported_threshold"] is None  # 70 % is all it can promise
    admin = make_user("ada-floor", workspace=split.workspace, role="admin")
    client = Client()
    client.force_login(admin)
    verdicts, events = Verdict.objects.count(), StateEvent.objects.count()

    detail = client.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    assert "cannot be activated" in detail and "Activate…" not in detail
    for body in ({}, {"confirm": "1"}):
        page = client.post(
            reverse("audit:calibrator-activate", args=[row.pk]), body, follow=True
        ).content.decode()
        assert "never reaches the floor (0.88)" in page
    with pytest.raises(CalibratorRefused, match="never reaches the floor"):
        judge_calibrator_activate(calibrator=row, actor=admin, judge=heuristic)
    row.refresh_from_db()
    assert row.status == "proposed"
    assert (Verdict.objects.count(), StateEvent.objects.count()) == (verdicts, events)

    # A calibrator activated under a lower floor (here: fitted for 0.6 on the point
    # estimate, so it says supported at 70 % precision) is not used by the judging
    # service either.
    decided = calibrator_decided_claims(workspace=split.workspace)
    prepared = claims_judge_items(claims=[c for c, _ in decided], with_context=True)
    reading = judge_reading(heuristic, [p.item for p in prepared])
    lax = fit_calibrator(reading.rows, [s for _, s in decided], reading.names, floor=0.6, z=0)
    assert lax.supported_threshold is not None
    precision = lax.figures["cv_supported"]["precision"]
    assert 0.6 <= precision < calibrator_precision_floor()
    active = JudgeCalibrator.objects.create(
        workspace=split.workspace,
        judge_model=heuristic.model_id,
        judge_prompt_version=heuristic.prompt_version,  # only the floor keeps it out
        version=2,
        params=lax.as_json(),
        training_size=len(decided),
        supported_decisions=35,
        contradicted_decisions=15,
        floor=0.6,
        cv_supported_precision=precision,
        cv_roc_auc=lax.figures["cv_roc_auc"],
        status="active",
    )
    in_use = calibrators_in_use(
        workspace_ids=[split.workspace.pk],
        judge_model=heuristic.model_id,
        prompt_version=heuristic.prompt_version,
    )
    assert active.status == "active" and in_use == {}
    new = unjudged_claims(split.workspace, kinds=("reworded", "unrelated"), indexes=range(12, 14))
    claims_judge(claims=list(new.values()), judge=heuristic)
    assert not Verdict.objects.filter(calibrator__isnull=False).exists()
    for claim in new.values():
        claim.refresh_from_db()
        assert claim.state_reason == "abstained"  # the plain judge's answer
