"""The embedded broker (``config/filesystem_broker.py``): a consumer never reads a
message file half-written, each message is taken by one consumer, and an unreadable file
is set aside instead of stopping the worker.

The first test is the issue's: two producer processes publish large and small messages
while a real Celery worker consumes them; every task runs once and the worker logs no
decode error. (On kombu's own filesystem channel the worker read files still being
written: ``JSONDecodeError``, kombu issue #1551.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from django.conf import settings
from kombu import Connection

from tests.verifier.pipeline.broker_probe_tasks import plan
from tests.verifier.pipeline.test_worker_killed import Worker, worker_process_env

SMALL, LARGE, LARGE_BYTES = 100, 12, 3_000_000
PRODUCERS = ("p0", "p1")


def _name() -> str:
    """A queue name of its own: kombu keeps the filesystem transport's declared
    exchanges in one process-wide state, whichever folder a test uses."""
    return f"q{uuid.uuid4().hex[:8]}"


def _folders(root: Path) -> dict[str, str]:
    folders = {name: root / "broker" / name for name in ("in", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": str(folders["in"]),
        "data_folder_out": str(folders["in"]),
        "processed_folder": str(folders["processed"]),
        "store_processed": False,
        "control_folder": str(folders["control"]),
        "polling_interval": 0.05,
    }


def _connection(root: Path) -> Connection:
    """A connection through the transport ``filesystem://`` names in the app's processes."""
    return Connection("filesystem://", transport_options=_folders(root))


@pytest.mark.django_db(transaction=True)
def test_two_producers_and_a_worker_every_task_once(tmp_path):
    record = tmp_path / "record.txt"
    queue = f"test-broker-{uuid.uuid4().hex[:8]}"
    env = worker_process_env(
        broker_url="filesystem://", data=tmp_path, SPANPROOF_TEST_RECORD=str(record)
    )
    log = tmp_path / "worker.log"
    worker = Worker(
        env,
        queue,
        log,
        concurrency=2,
        extra=["-I", "tests.verifier.pipeline.broker_probe_tasks"],
    )
    try:
        producers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.verifier.pipeline.broker_probe_tasks",
                    prefix,
                    queue,
                    str(SMALL),
                    str(LARGE),
                    str(LARGE_BYTES),
                ],
                cwd=settings.BASE_DIR,
                env=env,
            )
            for prefix in PRODUCERS
        ]
        for producer in producers:
            assert producer.wait(timeout=300) == 0
        expected = {tag for prefix in PRODUCERS for tag, _ in plan(prefix, SMALL, LARGE, 1)}
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and worker.process.poll() is None:
            done = record.read_text().splitlines() if record.exists() else []
            if len(done) >= len(expected):
                break
            time.sleep(0.3)
        time.sleep(1.0)  # a duplicate would arrive now
        assert worker.process.poll() is None, log.read_text(errors="replace")[-3000:]
    finally:
        worker.stop()
    lines = record.read_text().splitlines() if record.exists() else []
    counts = Counter(line.split()[0] for line in lines)
    worker_log = log.read_text(errors="replace")
    assert "JSONDecodeError" not in worker_log and "DecodeError" not in worker_log
    assert set(counts) == expected, (len(expected - set(counts)), worker_log[-3000:])
    assert max(counts.values()) == 1
    sizes = {line.split()[0]: int(line.split()[1]) for line in lines}
    assert all(sizes[tag] == LARGE_BYTES for tag in expected if "-l" in tag)


def test_an_unreadable_file_is_set_aside_and_the_next_message_delivered(tmp_path):
    name = _name()
    with _connection(tmp_path) as conn:
        simple = conn.SimpleQueue(name)
        options = _folders(tmp_path)
        # "0_" sorts before every real message (named by a monotonic clock in ms, never
        # starting with 0), so the consumer reads the broken file first
        Path(options["data_folder_in"], f"0_garbage.{name}.msg").write_text('{"half": ')
        simple.put({"n": 1})
        message = simple.get(timeout=5)
        assert message.payload == {"n": 1}
        message.ack()
        simple.close()
    aside = list(Path(options["processed_folder"]).glob("*.unreadable"))
    assert [p.name for p in aside] == [f"0_garbage.{name}.msg.unreadable"]


def test_two_consumers_never_take_the_same_message(tmp_path):
    total = 400
    name = _name()
    with _connection(tmp_path) as conn:
        simple = conn.SimpleQueue(name)
        for n in range(total):
            simple.put({"n": n})
        simple.close()
    taken: list[list[int]] = [[], []]

    def drain(index: int) -> None:
        with _connection(tmp_path) as conn:
            queue = conn.SimpleQueue(name)
            while True:
                try:
                    message = queue.get(timeout=0.5)
                except queue.Empty:
                    break
                taken[index].append(message.payload["n"])
                message.ack()
            queue.close()

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(taken[0] + taken[1]) == list(range(total))


def test_a_message_is_visible_only_once_complete(tmp_path, monkeypatch):
    """While a large message is being written, the queue folder holds no file a consumer
    would take: only a temporary name outside the ``<queue>.msg`` pattern."""
    import builtins

    seen_partial: list[str] = []
    name = _name()
    real_open = open
    options = _folders(tmp_path)

    class Spy:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.handle.__exit__(*exc)

        def __getattr__(self, name):  # fileno, close, ...: the real file's
            return getattr(self.handle, name)

        def write(self, data):
            written = self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            seen_partial.extend(
                entry
                for entry in os.listdir(options["data_folder_in"])
                if entry.partition(".")[2] == f"{name}.msg"
            )
            return written + self.handle.write(data[len(data) // 2 :])

    def spying_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return Spy(handle) if "w" in mode else handle

    with _connection(tmp_path) as conn:
        simple = conn.SimpleQueue(name)
        monkeypatch.setattr(builtins, "open", spying_open)
        simple.put({"pad": "x" * 1_000_000})
        monkeypatch.undo()
        assert simple.get(timeout=5).payload["pad"] == "x" * 1_000_000
        simple.close()
    assert seen_partial == []
