"""A calibrator's page, "Sends back a claim the judge decided": where the judge gave an
answer on none of the decisions the calibrator learned from, the page says so rather
than "it decided the other way on 0 of the 0 such decisions"."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from review.services import review_decide
from tests.factories import make_user
from tests.review.conftest import seen
from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
from verifier.services.judge_calibrators import judge_calibrator_fit

pytestmark = pytest.mark.django_db


def test_no_decision_where_the_judge_said_supported(workspace, settings):
    pin_heuristic(settings)
    # judged, none decided yet: the heuristic contradicts "number" claims and abstains
    # on "reworded" ones; the reviewers decide only those, so the judge said supported
    # on none of the decisions the calibrator learns from
    reviewed = build_reviewed_workspace(workspace, names=10, decided=0)
    for (kind, _), claim in reviewed.claims.items():
        if kind in ("number", "reworded"):
            decision = "contradicted" if kind == "number" else "supported"
            review_decide(
                claim=claim,
                reviewer=reviewed.reviewer,
                expected_version=seen(claim),
                decision=decision,
            )
    row = judge_calibrator_fit(workspace=workspace).row
    assert row is not None
    assert row.params["figures"]["cv_overrule"]["entailed"]["judge_decided"] == 0

    client = Client()
    client.force_login(make_user("ada-admin", workspace=workspace, role="admin"))
    page = client.get(reverse("audit:calibrator-detail", args=[row.pk])).content.decode()
    figures = page.split('id="calibrator-overrule"')[1].split("</dd>")[0]
    assert "of the 0 such decisions" not in figures
    assert (
        "judge said supported: the judge said it on none of these decisions, so there was "
        "nothing to measure: the judge's answer stands" in figures
    )
    assert "judge said contradicted: it decided the other way on" in figures

    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("calibrate_judge", workspace=workspace.slug, dry_run=True, stdout=out)
    printed = out.getvalue()
    assert "disagreed on 0 of 0" not in printed
    assert (
        "where the judge decided supported: it did on none of these decisions, so there was "
        "nothing to measure; the judge's answer stands" in printed
    )
