"""An activation or a deactivation answers at once; the claims are brought in line in the
background, chunk by chunk, each chunk under its claims' locks in its own transaction. A
worker that dies mid-way is replaced by the watchdog and the job goes on where it
stopped, appending nothing twice; a later change supersedes an unfinished one; the
activation page reads only the latest claims of a large scope, and says so."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_user, make_workspace
from verifier.engine import get_judge
from verifier.judges.reviewer_calibrator import Calibrator
from verifier.models import CalibratorChangeJob, Claim, Verdict
from verifier.selectors import calibrators as calibrator_selectors
from verifier.selectors.calibrators import CalibratorInUse, calibrator_plan
from verifier.services import calibrator_change_jobs as change_jobs
from verifier.services.judge_calibrators import judge_calibrator_activate, judge_calibrator_fit


class WorkerDied(BaseException):
    """What a killed worker looks like from inside: nothing after it runs."""


def _states(workspace) -> dict[int, tuple[str, str]]:
    return {
        pk: (state, reason)
        for pk, state, reason in Claim.objects.filter(workspace=workspace).values_list(
            "pk", "state", "state_reason"
        )
    }


@pytest.fixture
def admin(reviewed):
    return make_user("ada-admin", workspace=reviewed.workspace, role="admin")


def test_a_worker_that_dies_mid_way_is_replaced_and_the_job_goes_on_where_it_stopped(
    reviewed, admin, monkeypatch, settings, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(change_jobs, "CHUNK", 3)
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    plan = calibrator_plan(
        workspace=reviewed.workspace,
        judge=get_judge(),
        in_use=CalibratorInUse(row, Calibrator.from_json(row.params)),
    )
    assert len(plan.appends) > 3  # more than one chunk of work
    before, verdicts_before = _states(reviewed.workspace), Verdict.objects.count()

    job = judge_calibrator_activate(calibrator=row, actor=admin)  # enqueued on commit: not run
    assert (job.status, job.total) == ("queued", plan.scanned)
    row.refresh_from_db()
    assert row.status == "active"  # in force at once

    real_apply, calls = change_jobs.calibrator_chunk_apply, []

    def dies_on_the_second_chunk(**kwargs):
        calls.append(kwargs["ids"])
        if len(calls) == 2:
            raise WorkerDied
        return real_apply(**kwargs)

    monkeypatch.setattr(change_jobs, "calibrator_chunk_apply", dies_on_the_second_chunk)
    with pytest.raises(WorkerDied):
        change_jobs.calibrator_change_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.done, job.done_through) == ("running", 3, calls[0][-1])
    assert job.runner  # its lease, until the watchdog sees the silence
    monkeypatch.setattr(change_jobs, "calibrator_chunk_apply", real_apply)

    # A live worker's job is left alone; a silent one is enqueued again and goes on.
    assert change_jobs.calibrator_change_jobs_watch().requeued == []
    later = timezone.now() + timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        report = change_jobs.calibrator_change_jobs_watch(now=later)
    assert report.requeued == [job.pk]
    job.refresh_from_db()
    assert (job.status, job.attempts, job.done) == ("succeeded", 1, job.total)
    assert (job.appended, job.moved) == (len(plan.appends), len(plan.flips))

    # Exactly the flip list, and no verdict appended twice.
    flipped = {f.claim.pk: f.after for f in plan.flips}
    for pk, state in _states(reviewed.workspace).items():
        assert state == flipped.get(pk, before[pk]), pk
    assert Verdict.objects.count() == verdicts_before + len(plan.appends)
    assert Verdict.objects.filter(calibrator=row).count() == len(plan.appends)


def test_a_later_change_supersedes_an_unfinished_one(reviewed, admin):
    first = judge_calibrator_fit(workspace=reviewed.workspace).row
    first_job = judge_calibrator_activate(calibrator=first, actor=admin)
    second = judge_calibrator_fit(workspace=reviewed.workspace).row
    second_job = judge_calibrator_activate(calibrator=second, actor=admin)

    first_job = change_jobs.calibrator_change_job_run(job_id=first_job.pk)
    assert (first_job.status, first_job.done) == ("superseded", 0)
    assert f"job {second_job.pk}" in first_job.error and "v2" in first_job.error
    assert not Verdict.objects.filter(calibrator=first).exists()

    second_job = change_jobs.calibrator_change_job_run(job_id=second_job.pk)
    assert second_job.status == "succeeded" and second_job.appended > 0
    carried = {
        v.calibrator_id
        for v in Verdict.objects.filter(claim__workspace=reviewed.workspace, reviewer=None)
        if v.calibrator_id
    }
    assert carried == {second.pk}
    # running a finished job again changes nothing
    again = change_jobs.calibrator_change_job_run(job_id=second_job.pk)
    assert (again.status, again.appended) == ("succeeded", second_job.appended)


def test_a_job_for_another_judge_than_the_configured_one_stops_and_says_why(reviewed, admin):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    job = CalibratorChangeJob.objects.create(
        workspace=reviewed.workspace,
        calibrator=row,
        action="activate",
        judge_model="spanproof-nli-v1",
        cause="test",
        total=1,
    )
    verdicts = Verdict.objects.count()
    job = change_jobs.calibrator_change_job_run(job_id=job.pk)
    assert job.status == "failed"
    assert "the configured judge is spanproof-heuristic-v1 now" in job.error
    assert Verdict.objects.count() == verdicts


def test_the_activation_page_reads_the_latest_claims_of_a_large_scope_and_says_so(
    reviewed, admin, monkeypatch
):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    monkeypatch.setattr(calibrator_selectors, "PREVIEW_MAX_CLAIMS", 12)
    client = Client()
    client.force_login(admin)
    body = client.post(reverse("audit:calibrator-activate", args=[row.pk])).content.decode()
    in_scope = calibrator_selectors.calibrator_scope(
        workspace=reviewed.workspace, judge_model=row.judge_model
    )
    total = in_scope.count()
    assert total > 12
    assert 'id="preview-partial"' in body
    assert (
        f"{total} claims of this workspace are in its scope; this list read the latest 12" in body
    )
    latest = set(in_scope.order_by("-pk").values_list("public_id", flat=True)[:12])
    listed = set(re.findall(r"/audit/claims/(claim:[0-9a-z]{12})/", body))
    assert listed and listed <= latest
    assert not CalibratorChangeJob.objects.exists()  # nothing changes before confirming


def test_the_change_panel_polls_until_the_job_is_done(reviewed, admin):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    job = judge_calibrator_activate(calibrator=row, actor=admin)
    client = Client()
    client.force_login(admin)
    url = reverse("audit:calibrator-job", args=[job.pk])
    queued = client.get(url, headers={"HX-Request": "true"})
    assert queued.status_code == 200
    assert 'hx-trigger="every 2s"' in queued.content.decode()
    assert "Queued at" in queued.content.decode()  # a worker (eager here) takes it next
    listing = client.get(reverse("audit:calibrators")).content.decode()
    assert (
        f'href="{url}" class="calibrator-change">activation under way: 0 / {job.total}' in listing
    )
    change_jobs.calibrator_change_job_run(job_id=job.pk)
    assert "calibrator-change" not in client.get(reverse("audit:calibrators")).content.decode()
    done = client.get(url, headers={"HX-Request": "true"})
    assert done.status_code == 286  # htmx stops polling
    assert "hx-trigger" not in done.content.decode()
    page = client.get(url).content.decode()
    assert "Activation of calibrator v1" in page
    assert f"{job.total} / {job.total} claim" in page
    # another workspace's job is not found
    other = make_user("bo-admin", workspace=make_workspace("elsewhere"), role="admin")
    stranger = Client()
    stranger.force_login(other)
    assert stranger.get(url).status_code == 404


def test_healthz_lists_a_change_whose_worker_went_silent(reviewed, admin, client):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    job = judge_calibrator_activate(calibrator=row, actor=admin)
    CalibratorChangeJob.objects.filter(pk=job.pk).update(
        status="running", runner="x", heartbeat_at=timezone.now() - timedelta(days=1)
    )
    check = client.get("/healthz").json()["checks"]["calibrator_change_jobs"]
    assert check["ok"] is False
    assert [(j["id"], j["status"]) for j in check["stuck"]] == [(job.pk, "running")]
