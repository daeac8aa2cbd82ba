"""Stages whose items open their own transactions, run with real commits: the store
stage publishes a large job on several connections at once, each id range committing on
its own (the job succeeds only when every range is published); the extract stage calls
the extractor with no transaction open."""

from __future__ import annotations

import threading

import pytest

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import Claim, IngestStatus
from verifier.services import ingest, ingest_store
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _stages_run_by_hand(monkeypatch):
    """Outside a test transaction every commit would run the next stage's (eager) task
    at once; here each stage runs when the test calls it."""
    monkeypatch.setattr(ingest, "_enqueue", lambda job_id, stage: None)


def _job_before_store(workspace):
    job = unstarted_job(workspace)
    for stage in STAGE_ORDER[:-1]:
        ingest_stage_run(job_id=job.pk, stage=stage)
    job.refresh_from_db()
    assert job.stage == STAGE_ORDER[-1] and job.status == IngestStatus.RUNNING
    return job


@pytest.fixture
def ranges(monkeypatch):
    """Publish in parallel from two claims up; record (thread, first, last) per range."""
    monkeypatch.setattr(ingest_store, "PUBLISH_PARALLEL_MIN", 2)
    seen: list[tuple[int, int, int]] = []
    publish_range = ingest_store._publish_range

    def recorded(job_id: int, first: int, last: int) -> int:
        seen.append((threading.get_ident(), first, last))
        return publish_range(job_id, first, last)

    monkeypatch.setattr(ingest_store, "_publish_range", recorded)
    return seen


def test_a_large_job_is_published_in_disjoint_ranges_on_other_threads(workspace, ranges):
    job = _job_before_store(workspace)
    ids = sorted(Claim.objects.filter(ingest_job=job).values_list("pk", flat=True))

    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])

    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED
    assert not Claim.objects.filter(ingest_job=job, published=False).exists()
    assert job.quality_report["claims"] == len(ids)
    (t1, first1, last1), (t2, first2, last2) = sorted(ranges, key=lambda r: r[1])
    assert (first1, last2) == (ids[0], ids[-1]) and last1 < first2
    assert threading.get_ident() not in (t1, t2)


def test_a_range_that_fails_leaves_the_job_running_and_the_rerun_publishes_the_rest(
    workspace, ranges, monkeypatch
):
    job = _job_before_store(workspace)
    lowest = Claim.objects.filter(ingest_job=job).order_by("pk").values_list("pk", flat=True)[0]
    recorded = ingest_store._publish_range

    def second_range_fails(job_id: int, first: int, last: int) -> int:
        if first != lowest:
            raise RuntimeError("connection lost")
        return recorded(job_id, first, last)

    monkeypatch.setattr(ingest_store, "_publish_range", second_range_fails)
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])
    job.refresh_from_db()
    assert job.status == IngestStatus.RUNNING and job.quality_report is None
    assert [e["stage"] for e in job.errors] == ["store"]
    claims = Claim.objects.filter(ingest_job=job)
    assert 0 < claims.filter(published=True).count() < claims.count()

    monkeypatch.setattr(ingest_store, "_publish_range", recorded)
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED and not job.errors
    assert not claims.filter(published=False).exists()


def test_the_extractor_answers_with_no_transaction_open(workspace, monkeypatch):
    """A remote extractor may take seconds: no transaction (and no source-row lock) is
    held while it answers; the claims it returns are still written."""
    from django.db import connection

    from verifier.engine import get_extractor
    from verifier.services import ingest_extract

    real = get_extractor()
    in_transaction: list[bool] = []

    class Watched:
        model_id, family = real.model_id, real.family

        def extract(self, text):
            in_transaction.append(connection.in_atomic_block)
            return real.extract(text)

    monkeypatch.setattr(ingest_extract, "get_extractor", lambda: Watched())
    job = unstarted_job(workspace)
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[0])

    assert in_transaction == [False, False]  # one call per source, none in a transaction
    assert Claim.objects.filter(ingest_job=job).count() == 7
