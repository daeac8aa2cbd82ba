"""The calibrators' console actions with odd and hostile input: deactivating asks first
(a deactivated calibrator is never activated again), a second activation or deactivation
is refused with why and changes nothing, a stale calibrator is not activated, members
who are not admins are answered 403, a POST without its CSRF token is refused, and each
change leaves one activity line naming who made it. Real database, real judge."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
from verifier.judges import build_judge
from verifier.models import CalibratorChangeJob, JudgeCalibrator, WorkspaceEvent
from verifier.services.judge_calibrators import judge_calibrator_fit

pytestmark = pytest.mark.django_db
ADA = {"kind": "member", "name": "ada"}


@pytest.fixture
def calibrator(workspace, settings) -> JudgeCalibrator:
    pin_heuristic(settings)
    build_reviewed_workspace(workspace)
    return judge_calibrator_fit(workspace=workspace).row


def _activate(client: Client, row: JudgeCalibrator, capture) -> None:
    with capture(execute=True):
        done = client.post(reverse("audit:calibrator-activate", args=[row.pk]), {"confirm": "1"})
    assert done.status_code == 302
    row.refresh_from_db()
    assert row.status == "active"


def _lines(workspace) -> list[tuple[str, dict | None]]:
    return [
        (e.action, e.actor)
        for e in WorkspaceEvent.objects.filter(
            workspace=workspace, action__startswith="calibrator_"
        ).order_by("created_at", "id")
    ]


def test_deactivating_asks_first_and_changes_nothing_until_confirmed(
    admin_client_ws, workspace, calibrator, django_capture_on_commit_callbacks
):
    _activate(admin_client_ws, calibrator, django_capture_on_commit_callbacks)
    url = reverse("audit:calibrator-deactivate", args=[calibrator.pk])
    detail = admin_client_ws.get(reverse("audit:calibrator-detail", args=[calibrator.pk]))
    form = detail.content.decode().split(f'action="{url}"')[1].split(">")[0]
    assert 'data-confirm="Deactivate calibrator v1' in form  # asked in the browser

    asked = admin_client_ws.post(url)  # without script: a page that asks the same
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "cannot be activated again" in page and 'name="confirmed" value="1"' in page
    calibrator.refresh_from_db()
    assert calibrator.status == "active"
    assert not CalibratorChangeJob.objects.filter(action="deactivate").exists()
    assert _lines(workspace) == [("calibrator_activated", ADA)]

    with django_capture_on_commit_callbacks(execute=True):
        done = admin_client_ws.post(url, {"confirmed": "1"})
    assert done.status_code == 302
    calibrator.refresh_from_db()
    assert calibrator.status == "retired"
    assert _lines(workspace) == [("calibrator_activated", ADA), ("calibrator_deactivated", ADA)]


def test_a_second_activation_or_deactivation_is_refused_with_why(
    admin_client_ws, workspace, calibrator, django_capture_on_commit_callbacks
):
    _activate(admin_client_ws, calibrator, django_capture_on_commit_callbacks)
    again = admin_client_ws.post(
        reverse("audit:calibrator-activate", args=[calibrator.pk]), {"confirm": "1"}, follow=True
    )
    assert "is active; only a proposed calibrator is activated." in again.content.decode()
    assert CalibratorChangeJob.objects.filter(action="activate").count() == 1

    url = reverse("audit:calibrator-deactivate", args=[calibrator.pk])
    with django_capture_on_commit_callbacks(execute=True):
        admin_client_ws.post(url, {"confirmed": "1"})
    twice = admin_client_ws.post(url, {"confirmed": "1"}, follow=True)
    assert "is retired; only the active calibrator is deactivated." in twice.content.decode()
    # A calibrator that is not active is refused at once, not asked about first.
    unasked = admin_client_ws.post(url)
    assert unasked.status_code == 302
    assert CalibratorChangeJob.objects.filter(action="deactivate").count() == 1
    assert [action for action, _ in _lines(workspace)] == [
        "calibrator_activated",
        "calibrator_deactivated",
    ]


def test_a_calibrator_of_an_older_reading_is_not_activated(admin_client_ws, workspace, settings):
    pin_heuristic(settings)
    build_reviewed_workspace(workspace)
    older = build_judge({"backend": "heuristic"})
    older.prompt_version = 1  # the judge reads with another version now
    stale = judge_calibrator_fit(workspace=workspace, judge=older).row
    url = reverse("audit:calibrator-activate", args=[stale.pk])
    for data in ({}, {"confirm": "1"}):
        page = admin_client_ws.post(url, data, follow=True).content.decode()
        assert "cannot be activated: it learned from reading 1" in page
    stale.refresh_from_db()
    assert stale.status == "proposed"
    assert not CalibratorChangeJob.objects.exists() and _lines(workspace) == []


def test_members_who_are_not_admins_are_answered_403(
    reviewer_client, auditor_client, workspace, calibrator
):
    for client in (reviewer_client, auditor_client):
        for name, data in (
            ("audit:calibrator-activate", {"confirm": "1"}),
            ("audit:calibrator-deactivate", {"confirmed": "1"}),
        ):
            assert client.post(reverse(name, args=[calibrator.pk]), data).status_code == 403
    calibrator.refresh_from_db()
    assert calibrator.status == "proposed"
    assert not CalibratorChangeJob.objects.exists() and _lines(workspace) == []


def test_a_post_without_its_csrf_token_is_refused(admin_user, workspace, calibrator):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    response = client.post(
        reverse("audit:calibrator-activate", args=[calibrator.pk]), {"confirm": "1"}
    )
    assert response.status_code == 403
    calibrator.refresh_from_db()
    assert calibrator.status == "proposed" and _lines(workspace) == []


def test_another_workspaces_calibrator_is_a_404(admin_client_ws, other_workspace, settings):
    pin_heuristic(settings)
    build_reviewed_workspace(other_workspace)
    theirs = judge_calibrator_fit(workspace=other_workspace).row
    for name in ("audit:calibrator-activate", "audit:calibrator-deactivate"):
        response = admin_client_ws.post(reverse(name, args=[theirs.pk]), {"confirm": "1"})
        assert response.status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == "proposed"
