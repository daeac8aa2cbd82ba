"""A job's heartbeat outlives one failed beat: the thread tries again at the next beat
(on a fresh connection) instead of ending for good, which made a live worker look dead
to the watchdog after a single database error."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import make_workspace
from verifier.models import VerificationJob
from verifier.services.job_heartbeat import job_heartbeat, new_runner


@pytest.mark.django_db(transaction=True)
def test_a_failed_beat_does_not_stop_the_heartbeat():
    runner = new_runner()
    long_ago = timezone.now() - timedelta(hours=1)
    job = VerificationJob.objects.create(
        workspace=make_workspace("beat"), runner=runner, heartbeat_at=long_ago
    )
    calls = 0
    beaten_after_failure = threading.Event()

    def also() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("the database went away for a moment")
        if calls >= 3:
            beaten_after_failure.set()

    with job_heartbeat(model=VerificationJob, pk=job.pk, runner=runner, also=also, interval=0.05):
        assert beaten_after_failure.wait(10), "the heartbeat stopped at its first failure"
        first_after = VerificationJob.objects.get(pk=job.pk).heartbeat_at
    assert calls >= 3
    assert first_after is not None and first_after > long_ago
