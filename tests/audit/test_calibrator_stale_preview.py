"""Confirming a calibrator's activation is checked against the calibrator in force its
flip list was drawn against (the confirmation's ``previewed_against``, as rule sets
do): another admin's activation or deactivation in between refuses it with why, changes
nothing, and shows the flip list again against the calibrator in force now. Real
database, real judge."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import make_user
from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
from verifier.models import CalibratorChangeJob, JudgeCalibrator
from verifier.services.judge_calibrators import (
    judge_calibrator_activate,
    judge_calibrator_deactivate,
    judge_calibrator_fit,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def two(workspace, settings) -> tuple[JudgeCalibrator, JudgeCalibrator]:
    """Two proposed calibrators of the heuristic judge (v1, v2)."""
    pin_heuristic(settings)
    build_reviewed_workspace(workspace)
    first = judge_calibrator_fit(workspace=workspace).row
    second = judge_calibrator_fit(workspace=workspace).row
    assert first is not None and second is not None
    return first, second


def _preview(client: Client, row: JudgeCalibrator) -> tuple[str, dict[str, str]]:
    """The confirmation page of activating ``row``, and the form it posts back."""
    page = client.post(reverse("audit:calibrator-activate", args=[row.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    found = re.search(r'name="previewed_against" value="(\d*)"', html)
    assert found, "no preview marker on the confirmation page"
    return html, {"confirm": "1", "previewed_against": found.group(1)}


def _statuses(*rows: JudgeCalibrator) -> list[str]:
    for row in rows:
        row.refresh_from_db()
    return [row.status for row in rows]


def test_a_confirmation_previewed_before_another_admins_activation_is_refused(
    admin_client_ws, workspace, two, django_capture_on_commit_callbacks
):
    """ada was shown v1's flip list with no calibrator in force; dave then activated v2.
    Confirming the stale list silently retired dave's v2: it is refused, naming him,
    nothing changes, and the page shows v1's flip list again, now against v2 (which
    confirming retires). Confirming that one activates v1."""
    v1, v2 = two
    _, stale = _preview(admin_client_ws, v1)
    assert stale["previewed_against"] == ""
    dave = make_user("dave", workspace=workspace, role="admin")
    judge_calibrator_activate(calibrator=v2, actor=dave)
    jobs = CalibratorChangeJob.objects.count()

    refused = admin_client_ws.post(reverse("audit:calibrator-activate", args=[v1.pk]), stale)

    assert refused.status_code == 200
    page = refused.content.decode()
    assert "dave activated calibrator v2 of" in page
    assert "the flip list you were shown no longer holds" in page
    assert _statuses(v1, v2) == ["proposed", "active"]
    assert CalibratorChangeJob.objects.count() == jobs
    assert f'name="previewed_against" value="{v2.pk}"' in page  # the fresh preview
    assert 'id="retires"' in page and "calibrator v2 of" in page.split('id="retires"')[1]

    fresh = {"confirm": "1", "previewed_against": str(v2.pk)}
    with django_capture_on_commit_callbacks(execute=True):
        done = admin_client_ws.post(
            reverse("audit:calibrator-activate", args=[v1.pk]), fresh, follow=True
        )
    assert "Activated calibrator v1" in done.content.decode()
    assert _statuses(v1, v2) == ["active", "retired"]


def test_a_confirmation_previewed_before_a_deactivation_is_refused(
    admin_client_ws, workspace, two, django_capture_on_commit_callbacks
):
    """The flip list was drawn against v2 in force (the states it gave the claims); v2
    was deactivated since, so the list no longer holds: refused, says so."""
    v1, v2 = two
    dave = make_user("dave", workspace=workspace, role="admin")
    judge_calibrator_activate(calibrator=v2, actor=dave)
    _, stale = _preview(admin_client_ws, v1)
    assert stale["previewed_against"] == str(v2.pk)
    judge_calibrator_deactivate(calibrator=v2, actor=dave)

    refused = admin_client_ws.post(reverse("audit:calibrator-activate", args=[v1.pk]), stale)

    page = refused.content.decode()
    assert "has been deactivated since" in page
    assert 'name="previewed_against" value=""' in page
    assert _statuses(v1, v2) == ["proposed", "retired"]
