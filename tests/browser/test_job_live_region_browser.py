"""Chromium: an ingest job's page polls every second, but its live status line (and the
waiting-for-a-worker alert) stay in the page: the same element, whose words change only
when the job's do — so a screen reader hears each change once, and nothing while the
job stands still. The Cancel button keeps the keyboard across the polls."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace
from verifier.models import AuditPackJob, IngestJob, VerificationJob
from verifier.services.worker_beats import worker_beat_record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """(ids) => {
  window.liveNodes = ids.map((id) => document.getElementById(id));
  window.liveChanges = 0;
  window.polls = 0;
  const observer = new MutationObserver((records) => { window.liveChanges += records.length; });
  const what = { childList: true, subtree: true, characterData: true };
  window.liveNodes.forEach((node) => observer.observe(node, what));
  document.addEventListener("htmx:afterSwap", () => { window.polls += 1; });
}"""


def test_the_status_line_stays_and_speaks_only_when_the_job_changes(
    browser_page, live_server, settings
):
    settings.CELERY_TASK_ALWAYS_EAGER = False  # tasks go to a worker: none is running
    page = browser_page
    workspace = make_workspace("live-job")
    login_browser(page, live_server, make_user("rita", workspace=workspace, role="reviewer"))
    job = IngestJob.objects.create(workspace=workspace)

    page.goto(f"{live_server.url}/ingest/jobs/{job.pk}/")
    expect(page.locator("#job-message[role=status]")).to_have_text(f"Job #{job.pk} queued…")
    expect(page.locator("#job-waiting [role=alert]")).to_contain_text("Waiting for a worker")
    page.evaluate(WATCH, ["job-message", "job-waiting"])
    page.focus("#job-cancel")

    page.wait_for_function("() => window.polls >= 3", timeout=10_000)
    assert page.evaluate("window.liveChanges") == 0  # the same words were not said again
    expect(page.locator("#job-cancel")).to_be_focused()

    IngestJob.objects.filter(pk=job.pk).update(status="running", stage="extract")
    worker_beat_record(hostname="celery@here")
    expect(page.locator("#job-message")).to_have_text(f"Job #{job.pk} running (extract)…")
    expect(page.locator("#job-waiting [role=alert]")).to_have_count(0)
    same = page.evaluate(
        "() => window.liveNodes[0] === document.getElementById('job-message')"
        " && window.liveNodes[1] === document.getElementById('job-waiting')"
    )
    assert same  # the live elements were never replaced, only their words


@pytest.mark.parametrize("kind", ["verify", "pack"])
def test_verify_and_pack_job_pages_speak_only_when_the_job_changes(
    browser_page, live_server, settings, kind
):
    """The verification and audit-pack job pages replaced a whole aria-live panel (the
    results table with it) every second: now only a status line speaks, once a change."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    page = browser_page
    workspace = make_workspace(f"live-{kind}")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="auditor"))
    if kind == "verify":
        job = VerificationJob.objects.create(workspace=workspace, total=3)
        url, status, ids = f"/verify/jobs/{job.pk}/", "verify-job-status", ["verify-job-status"]
        ids.append("verify-job-waiting")
        words = f"Verification #{job.pk}: "
        model = VerificationJob
    else:
        job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"}, total=3)
        url, status, ids = f"/audit/pack/jobs/{job.pk}/", "pack-job-status", ["pack-job-status"]
        words = f"Audit pack #{job.pk}: "
        model = AuditPackJob

    page.goto(f"{live_server.url}{url}")
    expect(page.locator(f"#{status}[role=status]")).to_have_text(words + "queued.")
    assert page.locator("[aria-live]").count() == 0  # no panel that polls is a live region
    if kind == "verify":
        expect(page.locator("#verify-job-waiting [role=alert]")).to_contain_text("Waiting")
    page.evaluate(WATCH, ids)
    page.wait_for_function("() => window.polls >= 3", timeout=10_000)
    assert page.evaluate("window.liveChanges") == 0

    model.objects.filter(pk=job.pk).update(status="running", done=1)
    worker_beat_record(hostname="celery@here")
    expect(page.locator(f"#{status}")).to_have_text(words + "running.")
    assert page.evaluate(f"() => window.liveNodes[0] === document.getElementById('{status}')")
