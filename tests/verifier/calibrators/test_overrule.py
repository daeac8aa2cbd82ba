"""Overruling a judge that decided, with the workspace's calibrators: the fit records the
out-of-fold overrule figures, the console page, ``calibrate_judge`` and the API show
them, and a calibrator stored before they existed never sends a decided claim back to
the queue (it still decides where the judge abstained)."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.verifier.api.conftest import client_for
from verifier.judges import build_judge
from verifier.judges.reviewer_calibrator import Calibrator
from verifier.models import JudgeCalibrator
from verifier.selectors.calibrators import CalibratorInUse, calibrator_plan
from verifier.services.judge_calibrators import judge_calibrator_fit

DISAGREE = ("unverified", "judge_reviewers_disagree")


def _stored_without_overrule_figures(row: JudgeCalibrator) -> JudgeCalibrator:
    """The same fit as a row stored before the overrule figures were recorded."""
    fields = {
        f.name: getattr(row, f.name)
        for f in JudgeCalibrator._meta.concrete_fields
        if f.name not in ("id", "created_at")
    }
    params = dict(row.params)
    params["figures"] = {k: v for k, v in params["figures"].items() if k != "cv_overrule"}
    return JudgeCalibrator.objects.create(
        **{**fields, "version": row.version + 1, "params": params}
    )


def _plan(reviewed, row: JudgeCalibrator):
    return calibrator_plan(
        workspace=reviewed.workspace,
        judge=build_judge({"backend": "heuristic"}),
        in_use=CalibratorInUse(row, Calibrator.from_json(row.params)),
    )


def test_an_old_calibrator_without_overrule_figures_never_overrules(reviewed):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    overrule = row.params["figures"]["cv_overrule"]["entailed"]
    # 10 verbatim and 10 "added" claims decided by reviewers, all read entailed by the
    # judge; the calibrator said contradicted on the added ones and the reviewers agreed
    assert overrule["judge_decided"] == 20 and overrule["may_overrule"] is True
    assert any(f.after == DISAGREE for f in _plan(reviewed, row).flips)

    old = _stored_without_overrule_figures(row)
    plan = _plan(reviewed, old)
    assert plan.flips and all(f.after != DISAGREE for f in plan.flips)
    assert not plan.decided_changed  # the judge's decisions stand
    assert {f.claim.pk for f in plan.queued_decided} == {
        f.claim.pk for f in _plan(reviewed, row).queued_decided
    }

    # the API and the page say so
    api = client_for(reviewed.workspace, scope="read")
    docs = {c["id"]: c for c in api.get("/connect/v1/calibrators").json()["results"]}
    assert docs[row.pk]["overrule_entailed"] == {
        "judge_decided": 20,
        "disagreed": overrule["disagreed"],
        "sided_with_calibrator": overrule["sided_with_calibrator"],
        "precision": overrule["precision"],
        "may_overrule": True,
    }
    assert docs[old.pk]["overrule_entailed"] == {
        "judge_decided": None,
        "disagreed": None,
        "sided_with_calibrator": None,
        "precision": None,
        "may_overrule": False,
    }
    admin = make_user("ada-admin", workspace=reviewed.workspace, role="admin")
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    figures = page.split('id="calibrator-overrule"')[1].split("</dd>")[0]
    assert (
        f"judge said supported: it decided the other way on {overrule['disagreed']} of the "
        "20 such decisions" in figures
    )
    assert "it sends such a claim back to the queue" in figures
    page = client.get(reverse("audit:calibrator-detail", args=[old.pk])).content.decode()
    figures = page.split('id="calibrator-overrule"')[1].split("</dd>")[0]
    assert "not measured when it was fitted: the judge's answer stands" in figures


def test_calibrate_judge_prints_the_overrule_figures(reviewed):
    out = StringIO()
    call_command(
        "calibrate_judge", workspace=reviewed.workspace.slug, dry_run=True, json=True, stdout=out
    )
    payload = json.loads(out.getvalue())
    entailed = payload["cv_overrule"]["entailed"]
    assert entailed["judge_decided"] == 20 and entailed["may_overrule"] is True
    assert payload["cv_overrule"]["contradicted"]["may_overrule"] is False

    out = StringIO()
    call_command("calibrate_judge", workspace=reviewed.workspace.slug, dry_run=True, stdout=out)
    text = out.getvalue()
    assert (
        f"where the judge decided supported: out of fold it disagreed on "
        f"{entailed['disagreed']} of 20" in text
    )
    assert "it sends such claims back to the queue" in text
    assert "where the judge decided contradicted" in text
