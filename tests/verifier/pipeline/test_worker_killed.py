"""A worker SIGKILLed in the middle of a job: the job still completes, each item once.

The worker is a real ``celery worker`` process (prefork, one child) started here, run
against the test database as the runtime role and against a real broker: the
filesystem broker (which deletes a message when it is read, so only the watchdog can
bring the stage back) and Redis on 127.0.0.1:6379 (which also redelivers the
unacknowledged message). Its extractor is a local chat-completions server that hangs on
the first request, so the kill lands inside an extract item. After the kill a second
worker starts and the test plays the beat: it calls the watchdog until the job ends.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings as django_settings
from django.db import connection

from tests.factories import make_workspace
from tests.verifier.judges.chat_server import ChatServer, completion
from tests.verifier.pipeline.conftest import DOC_A, DOC_B, REDIS_URL, skip_unless_redis
from verifier.models import Claim, IngestJob, IngestStage
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.ingest_watch import ingest_jobs_watch

STALE_SECONDS = 3
JOB_TIMEOUT_SECONDS = 240
HANG_SECONDS = 600


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if s]


def _reply(request: dict, call: int) -> tuple:
    user = request["messages"][-1]["content"]
    chunk = user[user.index("<<<TEXT\n") + 8 : user.rindex("\nTEXT>>>")]
    claims = [{"text": s, "quote": s} for s in _sentences(chunk)]
    body = completion(json.dumps({"claims": claims}))
    return (200, body, HANG_SECONDS) if call == 0 else (200, body)


def _database_url() -> str:
    conn = connection.settings_dict
    host = quote(conn["HOST"], safe="")
    return (
        f"postgres://{django_settings.DATABASE_RUNTIME_USER}@{host}:{conn['PORT']}/{conn['NAME']}"
    )


def worker_process_env(*, broker_url: str, data: Path, **extra: str) -> dict[str, str]:
    """The environment of a worker process: the test database as the runtime role, the
    broker, ``data`` as its data folder (the filesystem broker's folders); ``extra``
    adds settings."""
    env = {
        **os.environ,
        "DATABASE_URL": _database_url(),
        "DJANGO_SECRET_KEY": "test-only-" + "k" * 50,
        "SPANPROOF_DATA": str(data),
        "CELERY_BROKER_URL": broker_url,
        "HF_HUB_OFFLINE": "1",
        **extra,
    }
    env.pop("DATABASE_OWNER_URL", None)
    return env


def worker_env(
    broker: dict, extractor: ChatServer, *, stale_seconds: int, **extra: str
) -> dict[str, str]:
    """``worker_process_env`` for ``broker``, with the local extractor."""
    return worker_process_env(
        broker_url=broker["url"],
        data=broker["data"],
        SPANPROOF_JOB_STALE_SECONDS=str(stale_seconds),
        SPANPROOF_BROKER_VISIBILITY_TIMEOUT="3600",
        SPANPROOF_EXTRACTOR_BACKEND="openai",
        SPANPROOF_EXTRACTOR_BASE_URL=extractor.base_url,
        SPANPROOF_EXTRACTOR_MODEL="test-extractor",
        SPANPROOF_EXTRACTOR_FAMILY="testfamily",
        **extra,
    )


class Worker:
    def __init__(
        self,
        env: dict[str, str],
        queue: str,
        log: Path,
        *,
        concurrency: int = 1,
        extra: Sequence[str] = (),
    ) -> None:
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=prefork",
                f"--concurrency={concurrency}",
                "-Q",
                queue,
                "--without-mingle",
                "--without-gossip",
                "-l",
                "info",
                *extra,
            ],
            cwd=django_settings.BASE_DIR,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: main process and child
        )

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool child), as the OOM killer or
        a lost machine would: nothing gets to acknowledge, reject or clean up."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=30)
        if not self.log.closed:
            self.log.close()


@pytest.fixture(params=["filesystem", "redis"])
def broker(request, tmp_path, settings):
    from config.celery import app

    kind = request.param
    if kind == "redis":
        skip_unless_redis()
    queue = f"test-killed-{uuid.uuid4().hex[:8]}"
    if kind == "filesystem":
        folders = {name: tmp_path / "broker" / name for name in ("in", "processed", "control")}
        for folder in folders.values():
            folder.mkdir(parents=True)
        url = "filesystem://"
        options = {
            "data_folder_in": str(folders["in"]),
            "data_folder_out": str(folders["in"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
            "control_folder": str(folders["control"]),
            "polling_interval": 0.05,
        }
    else:
        url, options = REDIS_URL, {"visibility_timeout": 3600}
    saved = {
        key: app.conf[key]
        for key in ("broker_url", "broker_transport_options", "task_default_queue")
    }
    saved_eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.SPANPROOF_JOB_STALE_SECONDS = STALE_SECONDS
    app.conf.update(
        broker_url=url,
        broker_transport_options=options,
        task_default_queue=queue,
        task_always_eager=False,
    )
    _reset_pools(app)
    yield {"kind": kind, "url": url, "queue": queue, "data": tmp_path}
    app.conf.update(saved)
    app.conf.task_always_eager = saved_eager
    _reset_pools(app)


def _reset_pools(app) -> None:
    """Close the connections made for the previous broker and empty kombu's global pool
    registry (a closed pool left registered would be handed to the next test that
    publishes to an equal-looking broker URL: "Acquire on closed pool"), and drop the
    app's AMQP helper, whose cached queues and router would keep sending to this test's
    queue."""
    from kombu import pools

    pools.reset()
    app._pool = None
    app.__dict__.pop("amqp", None)


def _wait(predicate, timeout: float, what: str, workers: list[Worker]) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if any(w.process.poll() is not None for w in workers if not w.log.closed):
            break
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_a_job_survives_its_worker_being_killed_mid_extract(broker, tmp_path):
    workspace = make_workspace(f"killed-{broker['kind']}")
    log = tmp_path / "worker.log"
    with ChatServer(_reply) as extractor:
        env = worker_env(broker, extractor, stale_seconds=STALE_SECONDS)
        first = Worker(env, broker["queue"], log)
        workers = [first]
        try:
            job = ingest_job_create(
                workspace=workspace,
                sources=[
                    SourceUpload(ref="source:a", text=DOC_A),
                    SourceUpload(ref="source:b", text=DOC_B),
                ],
            )
            # the first extract item is inside the (hanging) extractor call
            _wait(lambda: len(extractor.requests) >= 1, 120, "the first extract call", workers)
            job.refresh_from_db()
            assert job.status == "running" and job.stage == IngestStage.EXTRACT
            assert job.runner and job.progress[IngestStage.EXTRACT]["done"] == 0
            first.kill()

            second = Worker(env, broker["queue"], log)
            workers.append(second)

            def finished() -> bool:
                ingest_jobs_watch()  # what the beat task does every minute
                return IngestJob.objects.get(pk=job.pk).status not in ("queued", "running")

            _wait(finished, JOB_TIMEOUT_SECONDS, "the job to finish", workers)
        finally:
            for worker in workers:
                worker.stop()

    job = IngestJob.objects.get(pk=job.pk)
    tail = log.read_text(errors="replace")[-3000:]
    assert job.status == "succeeded", (job.status, job.stage, job.errors, tail)
    assert job.errors == []
    assert job.stage_attempts == 0
    for stage, entry in job.progress.items():
        assert len(entry["completed"]) == len(set(entry["completed"])), stage
        assert entry["done"] == entry["total"] == len(entry["completed"]), stage
    # every item's effect exactly once: one claim per extracted sentence, per source
    expected = {("source:a", s) for s in _sentences(DOC_A)} | {
        ("source:b", s) for s in _sentences(DOC_B)
    }
    rows = list(Claim.objects.filter(ingest_job=job).values_list("source__ref", "original_text"))
    assert sorted(rows) == sorted(expected)
    assert Claim.objects.filter(ingest_job=job, published=True).count() == len(expected)
    # the killed item was asked again; nothing else was asked twice
    assert len(extractor.requests) == 3
