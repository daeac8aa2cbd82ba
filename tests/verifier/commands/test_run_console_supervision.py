"""``manage.py run_console`` keeps serving when its worker or its beat is killed.

A real ``run_console`` (gunicorn, a Celery worker, Celery beat, under
``verifier.supervisor``) runs against the test database as the runtime role, on the
filesystem broker in a folder of its own. The test queues an ingest job, then
``kill -9``s the worker and the beat: both come back (a log line each, new pids, nothing
left of the old process groups), the job completes (the watchdog, run by the restarted
beat, re-enqueues what the killed worker took), and ``/healthz`` answers throughout.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from tests.factories import make_workspace
from tests.verifier.commands.test_run_console_server import _free_port
from tests.verifier.pipeline.conftest import DOC_A, DOC_B
from tests.verifier.pipeline.test_worker_killed import _reset_pools, worker_process_env
from verifier.models import IngestJob
from verifier.services.ingest_create import SourceUpload, ingest_job_create

READY_TIMEOUT_S = 240
JOB_TIMEOUT_S = 240


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _wait_for(predicate, timeout: float, what: str, console: subprocess.Popen, log: Path):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        if console.poll() is not None:
            break
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}: {log.read_text(errors='replace')[-3000:]}")


def _pid(log: Path, name: str, event: str = "started") -> int | None:
    found = re.findall(rf"{name} {event} \(pid (\d+)", log.read_text(errors="replace"))
    return int(found[-1]) if found else None


def _gone(pid: int) -> bool:
    """Neither the process nor anything in its process group is running."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    for entry in Path("/proc").iterdir():  # zombies waiting for a reaper do not count
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pid and fields[0] != "Z":
                return False
    return True


class HealthPoller(threading.Thread):
    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.results, self.stopping = url, [], threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.results.append(_get(self.url)[0])
            except OSError as exc:
                self.results.append(type(exc).__name__)
            time.sleep(0.25)


@pytest.fixture
def filesystem_broker(tmp_path, settings):
    """This process publishes to the console's broker folder (its SPANPROOF_DATA)."""
    from config.celery import app

    folders = {name: tmp_path / "broker" / name for name in ("in", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    saved = {k: app.conf[k] for k in ("broker_url", "broker_transport_options")}
    saved_eager = app.conf.task_always_eager
    settings.CELERY_TASK_ALWAYS_EAGER = False
    app.conf.update(
        broker_url="filesystem://",
        broker_transport_options={
            "data_folder_in": str(folders["in"]),
            "data_folder_out": str(folders["in"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
            "control_folder": str(folders["control"]),
            "polling_interval": 0.05,
        },
        task_always_eager=False,
    )
    _reset_pools(app)
    yield tmp_path
    app.conf.update(saved)
    app.conf.task_always_eager = saved_eager
    _reset_pools(app)


@pytest.mark.django_db(transaction=True)
def test_worker_and_beat_killed_under_run_console_come_back(filesystem_broker):
    data = filesystem_broker
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = worker_process_env(
        broker_url="filesystem://",
        data=data,
        SPANPROOF_JOB_STALE_SECONDS="3",
        SPANPROOF_JOB_WATCH_SECONDS="1",
    )
    log = data / "console.log"
    with log.open("wb") as out:
        console = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "run_console",
                "--no-demo",
                "--addr",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
                "--threads",
                "4",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    poller = HealthPoller(f"{base}/healthz")
    try:

        def healthy() -> bool:
            try:
                return _get(f"{base}/healthz")[0] == 200
            except OSError:
                return False

        _wait_for(healthy, READY_TIMEOUT_S, "the console", console, log)
        worker = _wait_for(lambda: _pid(log, "worker"), 30, "the worker", console, log)
        beat = _wait_for(lambda: _pid(log, "beat"), 30, "beat", console, log)
        poller.start()

        job = ingest_job_create(
            workspace=make_workspace("supervised"),
            sources=[
                SourceUpload(ref="source:a", text=DOC_A),
                SourceUpload(ref="source:b", text=DOC_B),
            ],
        )
        os.kill(worker, signal.SIGKILL)
        new_worker = _wait_for(
            lambda: _pid(log, "worker", "restarted"), 30, "the worker's restart", console, log
        )
        os.kill(beat, signal.SIGKILL)
        new_beat = _wait_for(
            lambda: _pid(log, "beat", "restarted"), 30, "beat's restart", console, log
        )

        def finished() -> bool:
            return IngestJob.objects.get(pk=job.pk).status not in ("queued", "running")

        _wait_for(finished, JOB_TIMEOUT_S, "the job", console, log)
        workers = _wait_for(
            lambda: _get(f"{base}/healthz")[1].count(b'"live": true'),
            60,
            "a live worker in /healthz",
            console,
            log,
        )
        assert workers
    finally:
        poller.stopping.set()
        if console.poll() is None:
            os.killpg(console.pid, signal.SIGTERM)
            try:
                console.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(console.pid, signal.SIGKILL)
                console.wait(timeout=30)
    text = log.read_text(errors="replace")
    job = IngestJob.objects.get(pk=job.pk)
    assert job.status == "succeeded", (job.status, job.errors, text[-3000:])
    assert new_worker != worker and new_beat != beat
    assert re.search(rf"worker \(pid {worker}\) stopped: killed by SIGKILL; restarting in", text)
    assert re.search(rf"beat \(pid {beat}\) stopped: killed by SIGKILL; restarting in", text)
    assert _gone(worker) and _gone(beat)  # nothing of theirs orphaned
    assert poller.results and set(poller.results) == {200}, poller.results
    assert console.returncode is not None
