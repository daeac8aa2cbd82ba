"""Activating and deactivating a reviewer calibrator, like a rule set: the admin sees
the flip list, activation does exactly that through the one state writer, the claims it
decides carry it in their append-only verdict history, new verdicts pass through it, and
deactivation gives the plain judge back."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.verifier.calibrators.conftest import unjudged_claims
from verifier.judges import build_judge
from verifier.judges.heuristic import MODEL_ID as HEURISTIC
from verifier.judges.reviewer_calibrator import Calibrator
from verifier.models import CalibratorChangeJob, Claim, JudgeCalibrator, StateEvent, Verdict
from verifier.selectors.calibrators import CalibratorInUse, calibrator_plan
from verifier.services.judge_calibrators import judge_calibrator_fit
from verifier.services.judging import claims_judge


def _states(workspace) -> dict[int, tuple[str, str]]:
    return {
        pk: (state, reason)
        for pk, state, reason in Claim.objects.filter(workspace=workspace).values_list(
            "pk", "state", "state_reason"
        )
    }


def _latest_model_verdict(claim) -> Verdict:
    return claim.verdicts.filter(reviewer__isnull=True).order_by("-at", "-id").first()


@pytest.fixture
def admin_client(reviewed):
    admin = make_user("ada-admin", workspace=reviewed.workspace, role="admin")
    client = Client()
    client.force_login(admin)
    client.admin = admin
    return client


def test_the_flip_list_is_what_activation_then_does(
    reviewed, admin_client, django_capture_on_commit_callbacks
):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    before = _states(reviewed.workspace)
    verdicts_before = Verdict.objects.count()
    in_use = CalibratorInUse(row, Calibrator.from_json(row.params))
    plan = calibrator_plan(
        workspace=reviewed.workspace, judge=build_judge({"backend": "heuristic"}), in_use=in_use
    )
    # reworded claims are decided supported, unrelated ones contradicted; the judge's
    # "added" claims go back to the queue; reviewers' own decisions are never touched.
    assert {c.pk for c in (f.claim for f in plan.queued_decided)} == {
        c.pk for c in reviewed.undecided("reworded") + reviewed.undecided("unrelated")
    }
    assert {f.claim.pk for f in plan.decided_changed} == {c.pk for c in reviewed.undecided("added")}
    assert {f.after for f in plan.decided_changed} == {("unverified", "judge_reviewers_disagree")}

    # The admin sees the version with its figures, then the same flip list before
    # confirming ...
    listing = admin_client.get(reverse("audit:calibrators")).content.decode()
    assert f'href="/audit/calibrators/{row.pk}/">v1</a>' in listing
    detail = admin_client.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    assert 'id="calibrator-figures"' in detail and "Activate…" in detail
    page = admin_client.post(reverse("audit:calibrator-activate", args=[row.pk]))
    assert page.status_code == 200
    body = page.content.decode()
    listed = set(re.findall(r"/audit/claims/(claim:[0-9a-z]{12})/", body))
    assert listed == {f.claim.public_id for f in plan.flips}
    assert 'id="flips-queued"' in body and 'id="flips-decided"' in body
    assert Verdict.objects.count() == verdicts_before  # nothing changes before confirming

    # ... and confirming does exactly that, in the background.
    with django_capture_on_commit_callbacks(execute=True):
        done = admin_client.post(
            reverse("audit:calibrator-activate", args=[row.pk]), {"confirm": "1"}
        )
    assert done.status_code == 302
    assert done["Location"] == reverse("audit:calibrator-detail", args=[row.pk])
    job = CalibratorChangeJob.objects.get(calibrator=row)
    assert (job.status, job.action, job.created_by) == ("succeeded", "activate", admin_client.admin)
    assert (job.done, job.appended, job.moved) == (job.total, len(plan.appends), len(plan.flips))
    detail = admin_client.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    assert 'id="calibrator-job"' in detail and "Succeeded" in detail
    after = _states(reviewed.workspace)
    flipped = {f.claim.pk: f.after for f in plan.flips}
    for pk, state in after.items():
        assert state == flipped.get(pk, before[pk]), pk
    row.refresh_from_db()
    assert (row.status, row.activated_by) == ("active", admin_client.admin)

    # Through the state writer: one state event per moved claim, with the cause and actor.
    events = StateEvent.objects.filter(cause="reviewer calibrator v1 activated")
    assert {e.claim_id for e in events} == set(flipped)
    assert {e.actor_id for e in events} == {admin_client.admin.pk}
    # Append-only verdict history: the judge's verdict stays, the calibrator's follows it.
    assert Verdict.objects.count() == verdicts_before + len(plan.appends)
    for flip in plan.flips:
        latest = _latest_model_verdict(flip.claim)
        assert (latest.calibrator_id, latest.judge_model) == (row.pk, HEURISTIC)
        assert "calibrator v1" in latest.note
        assert flip.claim.verdicts.filter(calibrator__isnull=True, reviewer__isnull=True).exists()


def test_new_verdicts_pass_through_the_active_calibrator_and_deactivation_restores_the_judge(
    reviewed, admin_client, django_capture_on_commit_callbacks
):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("audit:calibrator-activate", args=[row.pk]), {"confirm": "1"})
    decided_by_it = {
        f.pk
        for f in Claim.objects.filter(workspace=reviewed.workspace)
        if (_latest_model_verdict(f) or Verdict()).calibrator_id == row.pk
    }
    assert decided_by_it

    # New verdicts: the judge's, then the calibrator's where it answers.
    new = unjudged_claims(
        reviewed.workspace, kinds=("reworded", "verbatim", "added"), indexes=range(16, 18)
    )
    claims_judge(claims=list(new.values()), judge=build_judge({"backend": "heuristic"}))
    for (kind, _), claim in new.items():
        claim.refresh_from_db()
        history = list(claim.verdicts.order_by("at", "id"))
        if kind == "verbatim":  # the judge decided and the calibrator agrees: one verdict
            assert [v.calibrator_id for v in history] == [None]
            assert claim.state == "supported"
            continue
        assert [v.calibrator_id for v in history] == [None, row.pk]
        assert [v.judge_model for v in history] == [HEURISTIC, HEURISTIC]
        expected = {
            "reworded": ("supported", "entailed"),
            "added": ("unverified", "judge_reviewers_disagree"),
        }[kind]
        assert (claim.state, claim.state_reason) == expected
        event = claim.state_events.order_by("-at", "-id").first()
        assert "by calibrator v1" in event.cause

    # The queue files the disagreements under their own reason.
    reviewer = Client()
    reviewer.force_login(reviewed.reviewer)
    body = reviewer.get("/review/?reason=judge_reviewers_disagree").content.decode()
    listed = set(re.findall(r"claim:[0-9a-z]{12}", body))
    assert {c.public_id for (k, _), c in new.items() if k == "added"} <= listed
    assert not {c.public_id for (k, _), c in new.items() if k != "added"} & listed

    # Deactivation: the judge's own answer comes back for every claim the calibrator
    # decided (appended, through the state writer); nothing is deleted.
    calibrator_verdicts = Verdict.objects.filter(calibrator=row).count()
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("audit:calibrator-deactivate", args=[row.pk]), {"confirmed": "1"}
        )
    assert response.status_code == 302
    assert CalibratorChangeJob.objects.filter(
        calibrator=row, action="deactivate", status="succeeded"
    ).exists()
    row.refresh_from_db()
    assert row.status == "retired"
    assert Verdict.objects.filter(calibrator=row).count() == calibrator_verdicts
    for claim in Claim.objects.filter(workspace=reviewed.workspace):
        latest = _latest_model_verdict(claim)
        assert latest is None or latest.calibrator_id is None
    kinds = {c.pk: k for (k, _), c in {**reviewed.claims, **new}.items()}
    judged_only = [c.pk for c in reviewed.undecided() + list(new.values())]
    for claim in Claim.objects.filter(pk__in=judged_only):
        plain = {
            "reworded": ("unverified", "abstained"),
            "verbatim": ("supported", "entailed"),
            "number": ("contradicted", "contradicted"),
            "unrelated": ("unverified", "abstained"),
            "added": ("supported", "entailed"),
        }[kinds[claim.pk]]
        assert (claim.state, claim.state_reason) == plain
    assert (
        StateEvent.objects.filter(
            cause__startswith="reviewer calibrator v1 deactivated", actor=admin_client.admin
        ).count()
        == len(decided_by_it) + 4
    )  # + the four new claims it had decided

    # New verdicts are the plain judge's again.
    again = unjudged_claims(reviewed.workspace, kinds=("reworded",), indexes=range(18, 19))
    claims_judge(claims=list(again.values()), judge=build_judge({"backend": "heuristic"}))
    (claim,) = again.values()
    assert list(claim.verdicts.values_list("calibrator_id", flat=True)) == [None]
    assert Claim.objects.get(pk=claim.pk).state_reason == "abstained"


def test_a_second_activation_retires_the_first(
    reviewed, admin_client, django_capture_on_commit_callbacks
):
    first = judge_calibrator_fit(workspace=reviewed.workspace).row
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("audit:calibrator-activate", args=[first.pk]), {"confirm": "1"})
    second = judge_calibrator_fit(workspace=reviewed.workspace).row
    assert second.version == 2
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(reverse("audit:calibrator-activate", args=[second.pk]), {"confirm": "1"})
    statuses = dict(JudgeCalibrator.objects.values_list("version", "status"))
    assert statuses == {1: "retired", 2: "active"}
    # the claims it decides carry the version that decides them now
    latest = [_latest_model_verdict(c) for c in Claim.objects.filter(workspace=reviewed.workspace)]
    carried = {v.calibrator_id for v in latest if v is not None and v.calibrator_id}
    assert carried == {second.pk}
    # an active or retired calibrator is not activated again
    response = admin_client.post(
        reverse("audit:calibrator-activate", args=[first.pk]), {"confirm": "1"}, follow=True
    )
    assert "only a proposed calibrator is activated" in response.content.decode()
