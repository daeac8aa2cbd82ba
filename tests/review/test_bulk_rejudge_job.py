"""The queue's bulk "Send back to the judge" answers at once: it records a job that a
worker runs (``review.services.review_rejudge_job_run``), chunk by chunk under the claims'
row locks, by the single item's rules; the job's page follows it. Real database, real
judge; tasks run eagerly once the request's transaction commits (captured here, since a
test's transaction never commits)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from review import services as review_services
from review.models import ReviewLease
from review.services import review_lease_claim, review_rejudge_one
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import bulk_seen, queue_claim, seen
from verifier.models import Claim, Membership, ReviewRejudgeJob, StateEvent, Verdict
from verifier.services.review_rejudge_job_watch import review_rejudge_jobs_watch

HX = {"HTTP_HX_REQUEST": "true"}
RECIPES = ("abstained", "low_confidence", "contradicted", "coverage_gap", "stale_source")


class WorkerDied(BaseException):
    """What a killed worker looks like from inside: nothing after it runs."""


def _send_back(client: Client, *claims: Claim, follow: bool = False):
    data = {
        "action": "rejudge",
        "claims": [claim.public_id for claim in claims],
        "confirm": "on",
        **bulk_seen(*claims),
    }
    return client.post("/review/bulk/", data, follow=follow)


def _verdicts(*claims: Claim) -> dict[int, int]:
    return {claim.pk: Verdict.objects.filter(claim=claim).count() for claim in claims}


def _outcome(claim: Claim) -> tuple[str, str, str, float, str]:
    claim.refresh_from_db()
    last = Verdict.objects.filter(claim=claim).latest("id")
    return (claim.state, claim.state_reason, last.label, last.confidence, last.judge_model)


def test_the_request_records_a_job_and_judges_nothing_until_a_worker_runs_it(
    reviewer, reviewer_client, source, settings, django_capture_on_commit_callbacks
):
    from config.celery import app

    claims = [queue_claim(source, reason, text=f"Claim {reason}.") for reason in RECIPES]
    before = _verdicts(*claims)
    settings.CELERY_TASK_ALWAYS_EAGER = False  # a real deployment: a worker takes it
    app.conf.task_always_eager = False
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        response = _send_back(reviewer_client, *claims)

    job = ReviewRejudgeJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/review/send-back/{job.pk}/"
    assert (job.status, job.total, job.created_by, job.workspace) == (
        "queued",
        len(claims),
        reviewer,
        source.workspace,
    )
    assert job.claim_ids == sorted(claim.pk for claim in claims)
    assert _verdicts(*claims) == before  # the request judged nothing
    assert len(enqueued) == 1  # the job's task, sent once the request commits
    page = reviewer_client.get(response["Location"]).content.decode()
    assert "Sent 5 claims back to the judge. The judge reads them in the background." in page
    assert "Waiting for a worker since" in page  # no worker runs in this test

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    enqueued[0]()  # the worker runs the task

    job.refresh_from_db()
    assert (job.status, job.done, job.judged, job.skipped) == ("succeeded", 5, 5, [])
    assert _verdicts(*claims) == {pk: count + 1 for pk, count in before.items()}
    assert StateEvent.objects.filter(claim__in=claims, cause__contains="rita").exists()


def test_the_job_gives_each_claim_what_the_single_send_back_gives_it(
    reviewer, source, monkeypatch, django_capture_on_commit_callbacks
):
    """Twins: one sent back alone (``r`` on the item), one by the bulk action's job, in
    chunks of two; each pair ends with the same state, reason and verdict."""
    monkeypatch.setattr(review_services, "REJUDGE_CHUNK", 2)
    alone = [queue_claim(source, reason, text=f"Claim {reason}.") for reason in RECIPES]
    bulk = [queue_claim(source, reason, text=f"Claim {reason}.") for reason in RECIPES]
    states_before = {claim.pk: claim.state for claim in bulk}
    for claim in alone:
        review_rejudge_one(claim=claim, reviewer=reviewer, expected_version=seen(claim))

    with django_capture_on_commit_callbacks(execute=True):
        outcome = review_services.review_bulk_rejudge(
            claims=bulk, reviewer=reviewer, seen=_seen_map(*bulk)
        )

    assert outcome.job is not None
    job = ReviewRejudgeJob.objects.get(pk=outcome.job.pk)
    assert [_outcome(claim) for claim in bulk] == [_outcome(claim) for claim in alone]
    moved = sum(1 for claim in bulk if claim.state != states_before[claim.pk])
    assert (job.status, job.judged, job.moved, job.skipped) == ("succeeded", 5, moved, [])
    assert moved > 0


def _seen_map(*claims: Claim) -> dict[str, str]:
    return {claim.public_id: seen(claim) for claim in claims}


def test_a_claim_decided_or_taken_between_the_request_and_the_run_is_left_alone(
    reviewer_client, client, workspace, source, django_capture_on_commit_callbacks
):
    decided, held, sent = (queue_claim(source, "abstained", text=f"Claim {n}.") for n in "abc")
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        job_url = _send_back(reviewer_client, decided, held, sent)["Location"]

    otto = make_user("otto", workspace=workspace, role="reviewer")
    client.force_login(otto)
    answer = client.post(
        f"/review/item/{decided.public_id}/decide/",
        {"decision": "contradicted", "version": seen(decided)},
    )
    assert answer.status_code == 302
    ReviewLease.objects.filter(reviewer=otto).delete()  # the next item it served him
    review_lease_claim(claim=held, reviewer=otto, served_reason="next by risk")
    before = _verdicts(decided, held, sent)

    enqueued[0]()

    decided.refresh_from_db()
    assert (decided.state, decided.state_reason) == ("contradicted", "human_contradicted")
    assert _verdicts(decided, held, sent) == {**before, sent.pk: before[sent.pk] + 1}
    job = ReviewRejudgeJob.objects.get()
    assert (job.status, job.judged) == ("succeeded", 1)
    assert sorted(job.skipped, key=lambda entry: entry["why"]) == [
        {"claim": decided.public_id, "why": "changed"},
        {"claim": held.public_id, "why": "held", "holder": "otto"},
    ]
    page = reviewer_client.get(job_url).content.decode()
    assert "Skipped 1 claim another reviewer was working on:" in page
    assert f'<a href="/review/item/{held.public_id}/">{held.public_id}</a> (otto)' in page
    assert "Skipped 1 claim that changed after the selection was confirmed" in page


def test_the_progress_page_polls_until_the_job_ends(
    reviewer, reviewer_client, source, other_workspace, django_capture_on_commit_callbacks
):
    claims = [queue_claim(source, "abstained", text=f"Claim {n}.") for n in "ab"]
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        job_url = _send_back(reviewer_client, *claims)["Location"]

    page = reviewer_client.get(job_url + "?state=unverified")
    body = page.content.decode()
    assert page.status_code == 200 and "<h1>Send back to the judge #" in body
    assert 'href="/review/?state=unverified">Back to the queue</a>' in body
    panel = reviewer_client.get(job_url, **HX)
    assert panel.status_code == 200 and '<main id="main"' not in panel.content.decode()
    for answer in (page, panel):  # no cache serves the part as the page (Back)
        assert "HX-Request" in answer["Vary"]
    text = panel.content.decode()
    assert f'hx-get="{job_url}"' in text and "Queued" in text
    assert "0 / 2 claims read" in text

    enqueued[0]()

    done = reviewer_client.get(job_url, **HX)
    assert done.status_code == 286  # htmx stops polling
    text = done.content.decode()
    assert "hx-get" not in text.split("</section>")[0]
    assert "2 / 2 claims read · 2 judged" in text and "changed state" in text
    assert re.search(r'id="rejudge-job-status"[^>]*hx-swap-oob', text)
    assert "Send back to the judge #" in text and "succeeded, 2 of 2 claims judged." in text

    # blind review: how many claims moved would hint at the judge's answers
    Membership.objects.filter(user=reviewer).update(blind_review=True)
    assert "changed state" not in reviewer_client.get(job_url).content.decode()

    # another workspace's member gets the same 404 as for a missing job
    stranger = Client()
    stranger.force_login(make_user("sam", workspace=other_workspace, role="reviewer"))
    assert stranger.get(job_url).status_code == 404


def test_a_worker_killed_mid_way_is_replaced_by_the_watchdog_and_judges_nothing_twice(
    reviewer_client, source, monkeypatch, settings, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(review_services, "REJUDGE_CHUNK", 1)
    claims = [queue_claim(source, "abstained", text=f"Claim {n}.") for n in "abc"]
    before = _verdicts(*claims)
    with django_capture_on_commit_callbacks(execute=False):
        _send_back(reviewer_client, *claims)
    job = ReviewRejudgeJob.objects.get()

    real_chunk, calls = review_services.review_rejudge_chunk, []

    def dies_on_the_second_chunk(**kwargs):
        calls.append(kwargs["ids"])
        if len(calls) == 2:
            raise WorkerDied
        return real_chunk(**kwargs)

    monkeypatch.setattr(review_services, "review_rejudge_chunk", dies_on_the_second_chunk)
    with pytest.raises(WorkerDied):
        review_services.review_rejudge_job_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.done, job.done_through) == ("running", 1, calls[0][-1])
    assert job.runner  # its lease, until the watchdog hears the silence
    monkeypatch.setattr(review_services, "review_rejudge_chunk", real_chunk)

    assert review_rejudge_jobs_watch().requeued == []  # a live worker's job: left alone
    later = timezone.now() + timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS + 1)
    with django_capture_on_commit_callbacks(execute=True):
        report = review_rejudge_jobs_watch(now=later)

    assert report.requeued == [job.pk]
    job.refresh_from_db()
    assert (job.status, job.attempts, job.done, job.judged) == ("succeeded", 1, 3, 3)
    assert _verdicts(*claims) == {pk: count + 1 for pk, count in before.items()}


def test_a_member_who_may_no_longer_decide_has_nothing_judged(
    reviewer, reviewer_client, workspace, source, django_capture_on_commit_callbacks
):
    claim = queue_claim(source, "abstained")
    before = _verdicts(claim)
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        _send_back(reviewer_client, claim)
    Membership.objects.filter(user=reviewer, workspace=workspace).update(role="auditor")

    enqueued[0]()

    job = ReviewRejudgeJob.objects.get()
    assert (job.status, job.judged) == ("failed", 0)
    assert "may no longer decide in this workspace" in job.error
    assert _verdicts(claim) == before


def test_claims_of_two_workspaces_are_refused(reviewer, source):
    other = make_workspace("initech")
    Membership.objects.create(workspace=other, user=reviewer, role="reviewer")
    theirs = queue_claim(make_source(other, ref="source:other"), "abstained")
    with pytest.raises(review_services.ReviewError):
        review_services.review_bulk_rejudge(
            claims=[queue_claim(source, "abstained"), theirs], reviewer=reviewer
        )
    assert not ReviewRejudgeJob.objects.exists()


def test_the_job_counts_apart_claims_not_asked_and_those_the_judge_gave_no_answer_for(
    reviewer_client, source, request, django_capture_on_commit_callbacks
):
    """A claim with no span bound never reaches the judge, and a judge that cannot be
    reached answers nothing: neither is counted as judged, and the page says which is
    which (it read "3 judged" for a judge that was down)."""
    bound = [queue_claim(source, "abstained", text=f"Claim {n}.") for n in "ab"]
    unbound = queue_claim(source, "no_evidence", text="Claim c.")
    with django_capture_on_commit_callbacks(execute=False) as enqueued:
        job_url = _send_back(reviewer_client, *bound, unbound)["Location"]
    request.getfixturevalue("unreachable_judge")  # the judge goes down meanwhile

    enqueued[0]()

    job = ReviewRejudgeJob.objects.get()
    assert (job.status, job.done, job.judged, job.unbound, job.unanswered) == (
        "succeeded",
        3,
        0,
        1,
        2,
    )
    page = reviewer_client.get(job_url).content.decode()
    assert (
        "3 / 3 claims read · 0 judged · 1 not asked (no span bound) · 2 without an answer "
        "from the judge" in page
    )
    assert "The judge gave no usable answer for 2 claims" in page
    assert "they wait for a reviewer" in page and "Send them back again" in page
    assert "succeeded, 0 of 3 claims judged, 1 not asked (no span bound), 2 without an " in page
