"""A reviewer calibrator learned from one reading of the judge (its rules, word lists or
prompt: the ``prompt_version`` every verdict records) is never applied to another: the
features it weighs would mean something else. The judging service ignores it, it cannot
be activated, the console and the API say why, and the scheduled fit starts counting
again for the new reading."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_user
from tests.verifier.calibrators.conftest import unjudged_claims
from verifier.api.calibrators import calibrator_document
from verifier.judges import build_judge
from verifier.judges.heuristic import PROMPT_VERSION
from verifier.models import JudgeCalibrator, Verdict
from verifier.selectors.calibrators import calibrators_in_use
from verifier.services.judge_calibrators import (
    CalibratorRefused,
    judge_calibrator_activate,
    judge_calibrator_fit,
    judge_calibrators_fit_due,
)
from verifier.services.judging import claims_judge


def _heuristic(prompt_version: int):
    """The real heuristic judge, reading as version ``prompt_version``."""
    judge = build_judge({"backend": "heuristic"})
    judge.prompt_version = prompt_version
    return judge


def test_a_fit_records_the_reading_it_learned_from(reviewed):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    assert row.judge_prompt_version == PROMPT_VERSION
    older = judge_calibrator_fit(workspace=reviewed.workspace, judge=_heuristic(1)).row
    assert older.judge_prompt_version == 1


def test_a_calibrator_of_another_reading_decides_nothing(
    reviewed, client, django_capture_on_commit_callbacks
):
    admin = make_user("ada-reading", workspace=reviewed.workspace, role="admin")
    client.force_login(admin)
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("audit:calibrator-activate", args=[row.pk]), {"confirm": "1"})
    row.refresh_from_db()
    assert row.status == "active"
    present = _heuristic(PROMPT_VERSION)
    assert calibrators_in_use(
        workspace_ids=[reviewed.workspace.pk],
        judge_model=present.model_id,
        prompt_version=PROMPT_VERSION,
    )  # in use while the judge reads as it learned

    newer = _heuristic(PROMPT_VERSION + 1)
    assert (
        calibrators_in_use(
            workspace_ids=[reviewed.workspace.pk],
            judge_model=newer.model_id,
            prompt_version=newer.prompt_version,
        )
        == {}
    )
    new = unjudged_claims(
        reviewed.workspace, kinds=("reworded", "unrelated"), indexes=range(16, 18)
    )
    claims_judge(claims=list(new.values()), judge=newer)
    verdicts = Verdict.objects.filter(claim__in=list(new.values()))
    assert verdicts.exists()
    assert not verdicts.filter(calibrator__isnull=False).exists()
    assert set(verdicts.values_list("prompt_version", flat=True)) == {PROMPT_VERSION + 1}
    # the same claims with the judge reading as the calibrator learned: it decides some
    again = unjudged_claims(
        reviewed.workspace, kinds=("reworded", "unrelated"), indexes=range(18, 20)
    )
    claims_judge(claims=list(again.values()), judge=present)
    assert Verdict.objects.filter(claim__in=list(again.values()), calibrator=row).exists()

    document = calibrator_document(
        row, judge_model=newer.model_id, prompt_version=newer.prompt_version
    )
    assert document["judge_prompt_version"] == PROMPT_VERSION
    assert not document["can_decide"]
    assert f"learned from reading {PROMPT_VERSION}" in document["refusal"]
    assert calibrator_document(row, judge_model=present.model_id, prompt_version=PROMPT_VERSION)[
        "can_decide"
    ]


def test_a_calibrator_of_an_earlier_reading_cannot_be_activated(reviewed, client):
    admin = make_user("ada-stale", workspace=reviewed.workspace, role="admin")
    client.force_login(admin)
    stale = judge_calibrator_fit(workspace=reviewed.workspace, judge=_heuristic(1)).row
    with pytest.raises(CalibratorRefused, match="learned from reading 1"):
        judge_calibrator_activate(calibrator=stale, actor=admin, judge=_heuristic(PROMPT_VERSION))
    stale.refresh_from_db()
    assert stale.status == "proposed"

    listing = client.get(reverse("audit:calibrators")).content.decode()
    assert "learned from an earlier reading of the judge" in listing
    detail = client.get(reverse("audit:calibrator-detail", args=[stale.pk])).content.decode()
    assert "Learned from version 1 of how the judge reads a claim" in detail
    assert "a new calibrator must be fitted" in detail and "Activate…" not in detail
    page = client.post(
        reverse("audit:calibrator-activate", args=[stale.pk]), {"confirm": "1"}, follow=True
    ).content.decode()
    assert "a new calibrator must be fitted" in page
    stale.refresh_from_db()
    assert stale.status == "proposed"


def test_a_new_reading_starts_the_scheduled_count_again(settings, reviewed):
    settings.SPANPROOF_CALIBRATOR_MIN_NEW_DECISIONS = 50  # the fixture holds 50 decisions
    (first,) = judge_calibrators_fit_due(judge=_heuristic(PROMPT_VERSION))
    assert judge_calibrators_fit_due(judge=_heuristic(PROMPT_VERSION)) == []  # nothing new
    (second,) = judge_calibrators_fit_due(judge=_heuristic(PROMPT_VERSION + 1))
    assert (first.judge_prompt_version, second.judge_prompt_version) == (
        PROMPT_VERSION,
        PROMPT_VERSION + 1,
    )
    assert second.training_size == 50 and second.version == first.version + 1
    assert judge_calibrators_fit_due(judge=_heuristic(PROMPT_VERSION + 1)) == []
    assert JudgeCalibrator.objects.count() == 2
