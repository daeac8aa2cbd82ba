"""``verifier.supervisor``: a child that dies is restarted after a back-off with a log
line, whatever it forked goes with it, and the other children keep running. Real
processes (``python -c``), short back-offs."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from verifier.supervisor import Supervisor

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]
# A parent that forks a grandchild in its own process group, then sleeps.
FORKER = [
    sys.executable,
    "-c",
    "import subprocess, sys, time;"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']);"
    "print(child.pid, flush=True); time.sleep(600)",
]


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for its parent to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _poll_until(supervisor: Supervisor, predicate, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        supervisor.poll()
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


@pytest.fixture
def supervised():
    lines: list[str] = []
    supervisor = Supervisor(log=lines.append, backoff_first_s=0.2, backoff_max_s=0.8)
    yield supervisor, lines
    supervisor.stop(timeout_s=5)


def test_a_killed_child_is_restarted_with_a_back_off_and_the_others_keep_running(supervised):
    supervisor, lines = supervised
    worker = supervisor.add("worker", SLEEPER)
    web = supervisor.add("web", SLEEPER)
    supervisor.start()
    web_pid = web.pid
    backoffs = []
    for round_ in range(3):
        old = worker.pid
        os.kill(old, signal.SIGKILL)
        _poll_until(supervisor, lambda old=old: worker.pid != old)
        assert _alive(worker.pid) and not _alive(old)
        stopped = [line for line in lines if line.startswith(f"worker (pid {old}) stopped")]
        assert stopped and "killed by SIGKILL" in stopped[0]
        backoffs.append(float(stopped[0].rsplit("restarting in ", 1)[1].split()[0]))
        assert f"worker restarted (pid {worker.pid}, restart {round_ + 1})" in lines
    assert backoffs == [0.2, 0.4, 0.8]  # doubling, capped
    assert web.pid == web_pid and _alive(web_pid)
    assert worker.restarts == 3 and web.restarts == 0


def test_what_a_dead_child_forked_goes_with_it(supervised, tmp_path):
    supervisor, _ = supervised
    out = tmp_path / "out.txt"
    child = supervisor.add("worker", [*FORKER])
    child.argv = ["/bin/sh", "-c", f"{' '.join(_quote(a) for a in FORKER)} > {out}"]
    supervisor.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (out.exists() and out.read_text().strip()):
        time.sleep(0.05)
    grandchild = int(out.read_text().split()[0])
    assert _alive(grandchild)
    os.kill(child.pid, signal.SIGKILL)  # the shell dies; its children would be orphaned
    first = child.pids[0]
    _poll_until(supervisor, lambda: child.pid != first)
    time.sleep(0.2)
    assert not _alive(grandchild)


def test_stop_ends_every_child_and_its_group(supervised):
    supervisor, _ = supervised
    a = supervisor.add("a", SLEEPER)
    b = supervisor.add("b", SLEEPER)
    supervisor.start()
    supervisor.stop(timeout_s=5)
    assert not _alive(a.pid) and not _alive(b.pid)


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\"'\"'") + "'"
