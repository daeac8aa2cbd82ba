"""The queue page links to the reviewer's own send-backs to the judge still under way:
the job's progress page was reached only from the bulk action's answer, so a reviewer who
left it had no way back but the browser's history."""

from __future__ import annotations

from django.urls import reverse

from tests.factories import make_user
from verifier.models import ReviewRejudgeJob


def test_the_queue_links_to_my_send_backs_under_way_and_no_one_elses(
    reviewer, reviewer_client, workspace
):
    mine = ReviewRejudgeJob.objects.create(
        workspace=workspace, created_by=reviewer, claim_ids=[1, 2, 3], total=3, done=1
    )
    ReviewRejudgeJob.objects.create(
        workspace=workspace, created_by=reviewer, claim_ids=[4], total=1, status="succeeded"
    )
    lena = make_user("lena", workspace=workspace, role="reviewer")
    theirs = ReviewRejudgeJob.objects.create(
        workspace=workspace, created_by=lena, claim_ids=[5], total=1
    )

    body = reviewer_client.get(reverse("review:queue")).content.decode()

    assert 'id="send-backs-under-way"' in body
    assert f'href="{reverse("review:rejudge-job", args=[mine.pk])}"' in body
    assert f"#{mine.pk}: 1 of 3 claims read" in body
    assert reverse("review:rejudge-job", args=[theirs.pk]) not in body
    assert body.count('href="/review/send-back/') == 1


def test_without_one_under_way_the_queue_says_nothing_of_them(reviewer_client):
    body = reviewer_client.get(reverse("review:queue")).content.decode()
    assert "send-backs-under-way" not in body
