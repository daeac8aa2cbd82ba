"""Stages whose items open their own transactions, run with real commits: the store
stage publishes a large job on several connections at once, each id range committing on
its own (the job succeeds only when every range is published); the extract stage calls
the extractor with no transaction open."""

from __future__ import annotations

import threading

import pytest

from tests.verifier.pipeline.conftest import unstarted_job
from verifier.models import Claim, IngestItem, IngestStatus
from verifier.services import ingest, ingest_stages, ingest_store
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


def test_the_job_is_finished_only_after_its_store_item_is_marked_done(workspace, monkeypatch):
    """A job seen finished has no open item: the report and state are written after the
    store item's done mark, not inside the item (a worker stopped in between used to
    leave a succeeded job with its store item pending)."""
    job = _job_before_store(workspace)
    seen: list[tuple[str, str]] = []
    store = ingest_stages.ingest_job_store

    def watched(*, job):
        store(job=job)
        item = IngestItem.objects.get(job=job, stage=STAGE_ORDER[-1])
        seen.append((job.__class__.objects.get(pk=job.pk).status, item.status))

    monkeypatch.setattr(ingest_stages, "ingest_job_store", watched)
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])

    assert seen == [(IngestStatus.RUNNING, "running")]
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED and job.quality_report is not None
    assert IngestItem.objects.get(job=job, stage=STAGE_ORDER[-1]).status == "done"


def test_a_shard_lost_between_the_done_mark_and_the_finish_leaves_it_to_the_next_delivery(
    workspace, monkeypatch
):
    job = _job_before_store(workspace)
    finish = ingest_stages.ingest_job_finish

    def lost(*, job):
        raise RuntimeError("worker lost")

    monkeypatch.setattr(ingest_stages, "ingest_job_finish", lost)
    with pytest.raises(RuntimeError, match="worker lost"):
        ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])
    job.refresh_from_db()
    assert job.status == IngestStatus.RUNNING and job.quality_report is None
    assert IngestItem.objects.get(job=job, stage=STAGE_ORDER[-1]).status == "done"
    published = Claim.objects.filter(ingest_job=job, published=True).count()
    assert published == Claim.objects.filter(ingest_job=job).count()

    monkeypatch.setattr(ingest_stages, "ingest_job_finish", finish)
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])  # the watchdog's redelivery
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED
    assert job.quality_report["claims"] == published
    assert not job.errors


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
