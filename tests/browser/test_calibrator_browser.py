"""Chromium walks a calibrator's activation: the flip list, the confirmation, then the
claims brought in line in the background with the page following the job by itself."""

from __future__ import annotations

import os

import pytest

from tests.factories import make_user
from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
from verifier.models import CalibratorChangeJob, Verdict
from verifier.services import calibrator_change_jobs
from verifier.services.judge_calibrators import judge_calibrator_fit

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # set by conftest too

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_activates_a_calibrator_and_the_page_follows_the_change(
    browser_login, live_server, workspace, monkeypatch, settings
):
    from playwright.sync_api import expect

    pin_heuristic(settings)
    build_reviewed_workspace(workspace)
    row = judge_calibrator_fit(workspace=workspace).row
    admin = make_user("ada-admin", workspace=workspace, role="admin")
    # No worker picks the job up until the test plays one (below).
    monkeypatch.setattr(calibrator_change_jobs, "task_enqueue_on_commit", lambda *a, **k: None)
    page = browser_login(admin)

    page.goto(f"{live_server.url}/audit/calibrators/{row.pk}/")
    page.get_by_role("button", name="Activate…").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Activate calibrator v1")
    expect(page.locator("#flips-queued")).to_be_visible()
    assert not CalibratorChangeJob.objects.exists()  # nothing changes before confirming
    page.get_by_role("button", name="Confirm: activate").click()

    page.wait_for_url(f"**/audit/calibrators/{row.pk}/")
    expect(page.locator("#main .messages")).to_contain_text("Activated calibrator v1")
    panel = page.locator("#calibrator-job")
    expect(panel).to_contain_text("Queued")
    expect(panel).to_contain_text("Queued at")
    job = CalibratorChangeJob.objects.get(calibrator=row)

    calibrator_change_jobs.calibrator_change_job_run(job_id=job.pk)  # a worker runs it
    job.refresh_from_db()
    expect(panel).to_contain_text("Succeeded", timeout=10_000)  # polled, not reloaded
    expect(panel).to_contain_text(f"{job.total} / {job.total} claims read")
    expect(panel).to_contain_text(f"{job.appended} verdicts appended")
    assert job.appended == Verdict.objects.filter(calibrator=row).count() > 0
    expect(panel.locator("progress")).to_have_attribute("value", "100")
