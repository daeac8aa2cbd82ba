"""Threads per task for a worker's models (``verifier.worker_threads``, ``config.celery``).

Worker processes that each size torch's pool to the whole machine oversubscribe the
cores as soon as two of them embed at once; the rule shares the CPUs among a worker's
concurrent tasks, and ``SPANPROOF_WORKER_THREADS`` overrides it.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.concurrency.thread import TaskPool as ThreadPool
from django.core.exceptions import ImproperlyConfigured

from config.celery import apply_model_threads, size_model_threads
from tests.verifier.pipeline.test_worker_killed import Worker, worker_process_env
from verifier import worker_threads
from verifier.worker_threads import ENV

START_TIMEOUT_SECONDS = 120


@pytest.mark.parametrize(
    ("cpus", "concurrency", "expected"),
    [(2, 1, 2), (2, 2, 1), (16, 2, 8), (16, 3, 5), (2, 4, 1), (1, 1, 1)],
)
def test_the_cpus_are_shared_among_a_workers_concurrent_tasks(cpus, concurrency, expected):
    assert worker_threads.worker_threads(cpus=cpus, concurrency=concurrency, configured=None) == (
        expected
    )


def test_the_setting_decides_when_given():
    assert worker_threads.worker_threads(cpus=16, concurrency=2, configured=3) == 3
    assert worker_threads.worker_threads(cpus=1, concurrency=4, configured=2) == 2


@pytest.mark.parametrize(
    ("raw", "expected"), [(None, None), ("", None), ("  ", None), ("3", 3), (" 12 ", 12)]
)
def test_the_setting_is_read_as_a_whole_number_and_an_empty_one_is_unset(raw, expected):
    assert worker_threads.parse_worker_threads(raw) == expected


@pytest.mark.parametrize("bad", ["0", "-2", "two", "1.5"])
def test_a_setting_that_is_not_a_positive_whole_number_is_refused(bad):
    with pytest.raises(ImproperlyConfigured, match=ENV):
        worker_threads.parse_worker_threads(bad)


def test_a_worker_started_with_a_bad_setting_stops_with_the_reason(tmp_path):
    worker, log = _start_worker(tmp_path, {ENV: "two"})
    try:
        worker.process.wait(timeout=START_TIMEOUT_SECONDS)
    finally:
        worker.stop()
    assert worker.process.returncode != 0
    assert "SPANPROOF_WORKER_THREADS must be a whole number of threads" in log.read_text(
        errors="replace"
    )


@pytest.fixture
def torch_threads(monkeypatch):
    """torch's pool size and the module's resolved value, put back afterwards."""
    import torch

    before = torch.get_num_threads()
    monkeypatch.setattr(worker_threads, "_resolved", None)
    yield torch
    torch.set_num_threads(before)


def test_a_pool_of_threads_is_sized_in_the_worker_itself(torch_threads, settings):
    settings.SPANPROOF_WORKER_THREADS = 1
    torch_threads.set_num_threads(2)
    worker = SimpleNamespace(concurrency=2, pool_cls=ThreadPool)
    size_model_threads(sender="w@host", instance=worker)
    assert torch_threads.get_num_threads() == 1


def test_a_prefork_worker_leaves_sizing_to_its_pool_processes(torch_threads, settings):
    settings.SPANPROOF_WORKER_THREADS = 1
    torch_threads.set_num_threads(2)
    worker = SimpleNamespace(concurrency=2, pool_cls=PreforkPool)
    size_model_threads(sender="w@host", instance=worker)
    assert torch_threads.get_num_threads() == 2  # the main process runs no task
    apply_model_threads()  # what each forked pool process runs first
    assert torch_threads.get_num_threads() == 1


def test_a_process_that_is_not_a_worker_keeps_torchs_own_size(torch_threads):
    torch_threads.set_num_threads(2)
    apply_model_threads()
    assert torch_threads.get_num_threads() == 2


def _start_worker(tmp_path: Path, extra: dict[str, str]) -> tuple[Worker, Path]:
    """A real ``celery worker`` (prefork, two pool processes) on the filesystem broker."""
    env = worker_process_env(broker_url="filesystem://", data=tmp_path, **extra)
    if ENV not in extra:
        env.pop(ENV, None)
    log = tmp_path / "worker.log"
    return Worker(env, f"threads-{tmp_path.name}", log, concurrency=2), log


def _wait_for_lines(worker: Worker, log: Path, pattern: str, count: int) -> list:
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    found: list = []
    while time.monotonic() < deadline:
        found = re.findall(pattern, log.read_text(errors="replace"))
        if len(found) >= count or worker.process.poll() is not None:
            break
        time.sleep(0.2)
    return found


def test_a_real_prefork_worker_sizes_torch_in_each_pool_process(tmp_path):
    worker, log = _start_worker(tmp_path, {ENV: "1"})
    try:
        sized = _wait_for_lines(worker, log, r"torch intra-op threads in process (\d+): (\d+)", 2)
    finally:
        worker.stop()
    text = log.read_text(errors="replace")
    assert "Model threads per task: 1 (SPANPROOF_WORKER_THREADS;" in text, text[-3000:]
    assert len(sized) == 2, text[-3000:]
    assert {threads for _pid, threads in sized} == {"1"}
    assert len({pid for pid, _threads in sized}) == 2  # both pool processes, not the parent
    assert str(worker.process.pid) not in {pid for pid, _threads in sized}


def test_a_real_worker_without_the_setting_shares_its_cpus(tmp_path):
    from celery.utils.sysinfo import cpu_budget

    cpus = cpu_budget().count
    worker, log = _start_worker(tmp_path, {})
    try:
        decided = _wait_for_lines(worker, log, r"Model threads per task: (\d+) \(automatic", 1)
    finally:
        worker.stop()
    assert decided == [str(max(1, cpus // 2))], log.read_text(errors="replace")[-3000:]
