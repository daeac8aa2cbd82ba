"""One ingest job on two real ``celery worker`` processes at once, on the Redis broker.

Each stage is enqueued as ``SPANPROOF_INGEST_SHARDS`` (2) tasks, one per worker here;
the shards claim the stage's items (``IngestItem``) one at a time. The workers are the
same processes as in ``test_worker_killed.py`` (prefork, one child, the runtime role);
the extractor is a local chat-completions server that takes a moment per source, so
both workers are busy with extract items at once.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from collections import Counter

import pytest

from tests.factories import make_workspace
from tests.verifier.judges.chat_server import ChatServer, completion
from tests.verifier.pipeline.conftest import REDIS_URL, skip_unless_redis
from tests.verifier.pipeline.test_worker_killed import Worker, _reset_pools, worker_env
from verifier.models import Claim, IngestItem, IngestJob, Verdict
from verifier.selectors.ingest import claim_range_keys, claims_in_range
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.ingest_group import claims_group
from verifier.services.ingest_stages import GROUP_BATCH
from verifier.services.ingest_watch import ingest_jobs_watch

STALE_SECONDS = 3
JOB_TIMEOUT_SECONDS = 300
EXTRACT_DELAY_SECONDS = 0.5
HANG_SECONDS = 600
SOURCES = 6

PLACES = ["Halden Point", "the Marrow delta", "Kessel dam", "the north marsh", "Old Quay"]
THINGS = ["silt", "reed beds", "oyster reefs", "migratory geese", "the sandbar", "peat"]
WHEN = ["in 1871", "in 1962", "each autumn", "after heavy rain", "at high tide"]


def _document(index: int) -> str:
    """~90 sentences, distinct within and across documents (a few shared on purpose:
    the near-duplicate grouping has something to find)."""
    sentences = []
    for i in range(90):
        n = index * 1000 + i
        sentences.append(
            f"Survey {n} recorded {THINGS[n % 6]} near {PLACES[(n // 6) % 5]} "
            f"{WHEN[(n // 30) % 5]} with {n % 17 + 2} observers."
        )
    sentences.append("Salt marsh grasses trap silt at high tide along the Marrow River.")
    return " ".join(sentences)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if s]


def _chunks(extractor: ChatServer) -> list[str]:
    return [r["messages"][-1]["content"] for r in extractor.requests]


def _each_chunk_once(extractor: ChatServer) -> bool:
    """Every text the extractor was asked about, asked once (a long source is sent in
    several chunks)."""
    chunks = _chunks(extractor)
    return len(chunks) >= SOURCES and len(set(chunks)) == len(chunks)


def _reply(request: dict, call: int) -> tuple:
    user = request["messages"][-1]["content"]
    chunk = user[user.index("<<<TEXT\n") + 8 : user.rindex("\nTEXT>>>")]
    claims = [{"text": s, "quote": s} for s in _sentences(chunk)]
    return (200, completion(json.dumps({"claims": claims})), EXTRACT_DELAY_SECONDS)


@pytest.fixture
def redis_broker(tmp_path, settings):
    from config.celery import app

    skip_unless_redis()
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    queue = f"test-workers-{uuid.uuid4().hex[:8]}"
    saved = {
        key: app.conf[key]
        for key in ("broker_url", "broker_transport_options", "task_default_queue")
    }
    saved_eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = STALE_SECONDS
    settings.SPANPROOF_INGEST_SHARDS = 2
    app.conf.update(
        broker_url=REDIS_URL,
        broker_transport_options={"visibility_timeout": 3600},
        task_default_queue=queue,
        task_always_eager=False,
    )
    _reset_pools(app)
    yield {"url": REDIS_URL, "queue": queue, "data": tmp_path}
    app.conf.update(saved)
    app.conf.task_always_eager = saved_eager
    _reset_pools(app)


def _env_of(broker: dict, extractor: ChatServer) -> dict[str, str]:
    return worker_env(broker, extractor, stale_seconds=STALE_SECONDS, SPANPROOF_INGEST_SHARDS="2")


def _start_workers(broker, extractor, tmp_path, count: int) -> list[Worker]:
    workers = []
    for i in range(count):
        workers.append(Worker(_env_of(broker, extractor), broker["queue"], tmp_path / f"w{i}.log"))
    deadline = time.monotonic() + 120
    for i in range(count):  # both ready before the job exists, so both take a shard
        log = tmp_path / f"w{i}.log"
        while b" ready." not in log.read_bytes():
            assert time.monotonic() < deadline, log.read_text(errors="replace")[-2000:]
            assert workers[i].process.poll() is None, log.read_text(errors="replace")[-2000:]
            time.sleep(0.2)
    return workers


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _finished(job) -> bool:
    ingest_jobs_watch()  # what the beat task does every minute
    return IngestJob.objects.get(pk=job.pk).status not in ("queued", "running")


def _uploads(prefix: str) -> list[SourceUpload]:
    return [SourceUpload(ref=f"source:{prefix}{i}", text=_document(i)) for i in range(SOURCES)]


def _claim_rows(job) -> list[tuple]:
    rows = Claim.objects.filter(ingest_job=job).values_list(
        "source__ref", "original_text", "text", "quality", "state", "exclusion_reason"
    )
    return sorted(rows)


def _assert_each_item_once(job) -> None:
    job = IngestJob.objects.get(pk=job.pk)
    assert job.status == "succeeded", (job.status, job.stage, job.errors)
    assert job.errors == []
    items = IngestItem.objects.filter(job=job)
    assert not items.exclude(status="done").exists()
    for stage in STAGE_ORDER:
        entry = job.progress[stage]
        keys = list(items.filter(stage=stage).values_list("key", flat=True))
        assert len(entry["completed"]) == len(set(entry["completed"])), stage
        assert sorted(entry["completed"]) == sorted(keys), stage
        assert entry["done"] == entry["total"] == len(keys), stage
    # each claim once per (source, sentence); one model verdict per claim, none doubled
    claims = Claim.objects.filter(ingest_job=job)
    pairs = Counter(claims.values_list("source_id", "original_text"))
    assert max(pairs.values()) == 1
    verdicts = Counter(
        Verdict.objects.filter(claim__ingest_job=job, reviewer__isnull=True).values_list(
            "claim_id", flat=True
        )
    )
    assert set(verdicts) == set(claims.values_list("pk", flat=True))
    assert max(verdicts.values()) == 1


def _duplicate_of(job) -> dict[int, int | None]:
    return dict(Claim.objects.filter(ingest_job=job).values_list("pk", "duplicate_of_id"))


def _one_worker_rows(workspace_slug: str, extractor: ChatServer, settings) -> tuple[list, int]:
    """The same sources through one shard per stage, in this process."""
    settings.SPANPROOF_EXTRACTOR = {
        **settings.SPANPROOF_EXTRACTOR,
        "backend": "openai",
        "base_url": extractor.base_url,
        "model": "test-extractor",
        "family": "testfamily",
    }
    workspace = make_workspace(workspace_slug)
    job = ingest_job_create(workspace=workspace, sources=_uploads("s"), start=False)
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    job.refresh_from_db()
    assert job.status == "succeeded", job.errors
    return _claim_rows(job), job.quality_report["duplicates"]


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_two_workers_share_one_job_and_each_item_runs_once(redis_broker, tmp_path, settings):
    workspace = make_workspace("two-workers")
    with ChatServer(_reply) as extractor:
        workers = _start_workers(redis_broker, extractor, tmp_path, 2)
        try:
            job = ingest_job_create(workspace=workspace, sources=_uploads("s"))
            _wait(lambda: _finished(job), JOB_TIMEOUT_SECONDS, "the job to finish")
        finally:
            for worker in workers:
                worker.stop()
        assert _each_chunk_once(extractor)  # each source extracted once
        alone, alone_duplicates = _one_worker_rows("one-worker", extractor, settings)

    _assert_each_item_once(job)
    items = IngestItem.objects.filter(job=job)
    # both worker processes ran items, of the extract stage and of the whole job
    assert len(set(items.values_list("done_by", flat=True))) == 2
    assert len(set(items.filter(stage="extract").values_list("done_by", flat=True))) == 2
    # the same claims, classified the same, as one worker running the stages alone
    job.refresh_from_db()
    assert _claim_rows(job) == alone
    # near-duplicate roots depend on claim ids, i.e. on the order extract items finished
    # in, so compare against the serial grouping of this job's own claims: regrouping
    # them batch after batch in one process changes nothing
    assert alone_duplicates > 0
    grouped = _duplicate_of(job)
    assert job.quality_report["duplicates"] == sum(1 for v in grouped.values() if v) > 0
    for key in claim_range_keys(job, GROUP_BATCH):
        claims_group(claims=list(claims_in_range(job, key)))
    assert _duplicate_of(job) == grouped


def _hang_first(request: dict, call: int) -> tuple:
    """Source 0's first chunk hangs the first time it is asked (its worker is killed
    inside it); everything else answers after the usual moment."""
    status, body, _ = _reply(request, call)
    first_chunk = "Survey 0 recorded" in request["messages"][-1]["content"]
    if first_chunk and not _hung:
        _hung.append(call)
        return (status, body, HANG_SECONDS)
    return (status, body, EXTRACT_DELAY_SECONDS)


_hung: list[int] = []


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_one_of_two_workers_killed_mid_item_the_job_completes_each_item_once(
    redis_broker, tmp_path
):
    """The worker holding an extract item is killed inside it (the extractor hangs on
    its first request); the other worker goes on with the rest and takes the dead one's
    item over once its lease is silent. Nothing runs twice but that item."""
    workspace = make_workspace("two-workers-killed")
    _hung.clear()
    with ChatServer(_hang_first) as extractor:
        workers = _start_workers(redis_broker, extractor, tmp_path, 2)
        try:
            job = ingest_job_create(workspace=workspace, sources=_uploads("s"))
            _wait(lambda: bool(_hung), 120, "source 0's extract call")
            holder = IngestItem.objects.get(job=job, stage="extract", status="running", position=0)
            pid = int(holder.done_by.rsplit(":", 1)[1])
            [victim] = [w for w in workers if os.getpgid(pid) == w.process.pid]
            victim.kill()
            _wait(lambda: _finished(job), JOB_TIMEOUT_SECONDS, "the job to finish")
        finally:
            for worker in workers:
                worker.stop()
        chunks = _chunks(extractor)

    _assert_each_item_once(job)
    # the killed item's chunk was asked again; nothing else was asked twice
    assert Counter(chunks).most_common(1)[0][1] == 2
    assert len(chunks) == len(set(chunks)) + 1
    holder.refresh_from_db()
    assert holder.status == "done" and holder.attempts == 2
    assert int(holder.done_by.rsplit(":", 1)[1]) != pid
    expected = sorted(
        (f"source:s{i}", sentence) for i in range(SOURCES) for sentence in _sentences(_document(i))
    )
    rows = Claim.objects.filter(ingest_job=job).values_list("source__ref", "original_text")
    assert sorted(rows) == expected
    assert Claim.objects.filter(ingest_job=job, published=True).count() == len(expected)
