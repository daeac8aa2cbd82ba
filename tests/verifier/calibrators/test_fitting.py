"""Fitting a reviewer calibrator from the workspace's decisions, by the beat task and by
``manage.py calibrate_judge``: real decisions (``review_decide``), the real heuristic
judge reading each claim's bound span, the real database."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from review.services import review_decide
from tests.review.conftest import seen
from tests.verifier.calibrators.conftest import KINDS, REVIEWERS_SAY, build_reviewed_workspace
from verifier.judges.heuristic import MODEL_ID as HEURISTIC
from verifier.judges.reviewer_calibrator import Calibrator
from verifier.models import JudgeCalibrator
from verifier.pipeline.tasks import fit_judge_calibrators
from verifier.services.judge_calibrators import CalibratorRefused, judge_calibrator_fit


def test_a_fit_learns_from_the_reviewers_decisions_and_is_an_immutable_row(reviewed):
    fit = judge_calibrator_fit(workspace=reviewed.workspace)
    row = fit.row
    assert (row.version, row.status, row.judge_model) == (1, "proposed", HEURISTIC)
    assert (row.training_size, row.supported_decisions, row.contradicted_decisions) == (50, 20, 30)
    assert row.cv_supported_precision >= row.floor == pytest.approx(0.88)
    assert row.cv_abstention < row.judge_abstention  # it decides what the judge left open
    calibrator = Calibrator.from_json(row.params)
    assert calibrator.supported_threshold is not None
    assert calibrator.feature_names[0] == "answer_entailed"
    # Only the status may move; the fitted numbers never change.
    with pytest.raises(IntegrityError), transaction.atomic():
        JudgeCalibrator.objects.filter(pk=row.pk).update(training_size=1)
    JudgeCalibrator.objects.filter(pk=row.pk).update(status="retired")


def test_the_beat_task_fits_only_past_n_new_decisions(settings, reviewed):
    settings.SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS = 51  # 50 decisions so far
    assert fit_judge_calibrators.delay().get() == []
    assert not JudgeCalibrator.objects.exists()

    settings.SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS = 50
    (first,) = fit_judge_calibrators.delay().get()
    assert JudgeCalibrator.objects.get(pk=first).training_size == 50
    assert fit_judge_calibrators.delay().get() == []  # nothing new since

    settings.SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS = 5
    undecided = reviewed.undecided("verbatim")
    for claim in undecided[:4]:
        review_decide(
            claim=claim,
            reviewer=reviewed.reviewer,
            expected_version=seen(claim),
            decision="supported",
        )
    assert fit_judge_calibrators.delay().get() == []  # 4 new: not yet
    review_decide(
        claim=undecided[4],
        reviewer=reviewed.reviewer,
        expected_version=seen(undecided[4]),
        decision="supported",
    )
    (second,) = fit_judge_calibrators.delay().get()
    second = JudgeCalibrator.objects.get(pk=second)
    assert (second.version, second.training_size) == (2, 55)
    assert second.decisions_through > JudgeCalibrator.objects.get(pk=first).decisions_through


def test_too_few_decisions_fit_nothing(workspace):
    build_reviewed_workspace(workspace, names=3, decided=2)  # 10 decisions
    with pytest.raises(CalibratorRefused, match="a calibrator needs 20") as caught:
        judge_calibrator_fit(workspace=workspace)
    assert caught.value.code == "not_enough_decisions"
    with pytest.raises(CommandError, match="a calibrator needs 20"):
        call_command("calibrate_judge", workspace=workspace.slug)
    assert not JudgeCalibrator.objects.exists()


def test_the_command_prints_the_figures_and_a_dry_run_stores_nothing(reviewed):
    out = io.StringIO()
    call_command("calibrate_judge", workspace=reviewed.workspace.slug, dry_run=True, stdout=out)
    text = out.getvalue()
    assert "dry run: not stored" in text
    assert "learned from 50 decisions (20 supported, 30 contradicted)" in text
    assert "supported: threshold" in text and "judge + calibrator: abstains on" in text
    assert "can be activated" in text
    assert not JudgeCalibrator.objects.exists()

    out = io.StringIO()
    call_command("calibrate_judge", workspace=reviewed.workspace.slug, stdout=out)
    assert "stored as v1 (proposed)" in out.getvalue()
    assert JudgeCalibrator.objects.get().training_size == 50
    with pytest.raises(CommandError, match="no workspace"):
        call_command("calibrate_judge", workspace="nowhere")


def test_every_kind_is_decided_in_the_fixture(reviewed):
    """The fixture's premise: reviewers decided ten claims of each kind as documented."""
    for kind in KINDS:
        decided = [c for (k, i), c in reviewed.claims.items() if k == kind and i < 10]
        states = {reviewed.fresh(c).state_reason for c in decided}
        assert states == {f"human_{REVIEWERS_SAY[kind]}"}
