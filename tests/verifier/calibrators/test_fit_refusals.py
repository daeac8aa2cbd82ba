"""What a fit says when it cannot learn, and what it left out: a workspace whose
reviewers decided nothing was told "no decided claim has a bound span that is still
fresh" (walk of issue 41), and the "not stated by the source" decisions a fit leaves
out were counted nowhere, so 70 decisions read as "learned from 63"."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from tests.verifier.calibrators.conftest import REVIEWERS_SAY, build_reviewed_workspace
from verifier.models import JudgeCalibrator
from verifier.services.judge_calibrators import CalibratorRefused, judge_calibrator_fit

pytestmark = pytest.mark.django_db


def test_a_workspace_without_decisions_is_told_what_a_fit_needs(workspace):
    build_reviewed_workspace(workspace, names=2, decided=0)  # judged, nobody decided
    with pytest.raises(CalibratorRefused) as caught:
        judge_calibrator_fit(workspace=workspace, dry_run=True)
    assert caught.value.code == "not_enough_decisions"
    assert caught.value.message == (
        "no reviewer has decided a claim supported or contradicted yet; a calibrator "
        "needs 20 such decisions, with 5 of each"
    )
    with pytest.raises(CommandError, match="no reviewer has decided a claim"):
        call_command("calibrate_judge", workspace=workspace.slug, dry_run=True)


def test_only_not_stated_decisions_are_named_as_not_learned_from(workspace):
    build_reviewed_workspace(workspace, names=2, decided=2, reviewers_say=lambda k, i: "not_stated")
    with pytest.raises(CalibratorRefused) as caught:
        judge_calibrator_fit(workspace=workspace, dry_run=True)
    assert "no reviewer has decided a claim supported or contradicted yet" in caught.value.message
    assert "(10 claims decided “not stated by the source” are not learned from" in (
        caught.value.message
    )
    assert not JudgeCalibrator.objects.exists()


def test_the_command_counts_the_not_stated_decisions_it_left_out(workspace):
    def say(kind: str, i: int) -> str:
        return "not_stated" if kind == "unrelated" and i < 3 else REVIEWERS_SAY[kind]

    build_reviewed_workspace(workspace, reviewers_say=say)
    out = io.StringIO()
    call_command("calibrate_judge", workspace=workspace.slug, dry_run=True, stdout=out)
    text = out.getvalue()
    assert "learned from 47 decisions (20 supported, 27 contradicted)" in text
    assert '3 claims decided "not stated by the source" are not learned from' in text
    out = io.StringIO()
    call_command("calibrate_judge", workspace=workspace.slug, dry_run=True, json=True, stdout=out)
    assert json.loads(out.getvalue())["decided_not_stated"] == 3
    assert not JudgeCalibrator.objects.exists()
