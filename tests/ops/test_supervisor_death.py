"""A supervisor that dies takes its children with it (``verifier.supervisor``,
``PARENT_DEATH_SIGNAL``): killed outright, it cannot stop them itself, and they used to
live on in process groups of their own, nothing restarting them, in the way of the next
``make run`` (the web port taken, a second worker and beat). Real processes: a
supervisor in a process of its own, SIGKILLed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent.parent
GUARD_SECONDS: Final = 30.0
# A supervisor of one sleeping child that prints the child's pid, then polls.
SUPERVISOR: Final = (
    "import sys, time\n"
    "from verifier.supervisor import Supervisor\n"
    "supervisor = Supervisor(log=lambda line: None, backoff_first_s=0.1)\n"
    "child = supervisor.add('sleeper', [sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "supervisor.start()\n"
    "print(child.pid, flush=True)\n"
    "while True:\n"
    "    supervisor.poll()\n"
    "    time.sleep(0.05)\n"
)

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's"
)


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for its parent to reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_the_children_of_a_killed_supervisor_stop_too():
    supervisor = subprocess.Popen(
        [sys.executable, "-c", SUPERVISOR], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert supervisor.stdout is not None
    child = int(supervisor.stdout.readline())
    try:
        assert _alive(child)
        supervisor.kill()
        supervisor.wait()
        deadline = time.monotonic() + GUARD_SECONDS  # a guard, not a measurement
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(child), "the child outlived its supervisor"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
