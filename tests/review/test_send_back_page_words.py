"""A send-back's page speaks to whoever reads it: the sender reads "sent back by you",
anyone else the sender's name, and a claim left alone "changed after the selection was
confirmed" (it told every reader, auditors included, "after you confirmed")."""

from __future__ import annotations

from django.urls import reverse

from verifier.models import ReviewRejudgeJob


def _job(workspace, sender):
    return ReviewRejudgeJob.objects.create(
        workspace=workspace,
        created_by=sender,
        claim_ids=[1, 2],
        total=2,
        done=2,
        status="succeeded",
        skipped=[{"claim": "claim:aaaaaaaaaaaa", "why": "changed"}],
    )


def test_the_sender_reads_you_and_another_reader_the_senders_name(
    reviewer, reviewer_client, auditor_client, workspace
):
    job = _job(workspace, reviewer)
    url = reverse("review:rejudge-job", args=[job.pk])
    mine = reviewer_client.get(url).content.decode()
    theirs = auditor_client.get(url).content.decode()
    assert "sent back by you at" in mine
    assert f"sent back by {reviewer.get_username()} at" in theirs
    for body in (mine, theirs):
        assert "Skipped 1 claim that changed after the selection was confirmed" in body
        assert "after you confirmed" not in body
