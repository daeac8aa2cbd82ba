"""Keeps ``make run``'s processes up: one dead process never takes the others down.

``manage.py run_console`` starts the web server, the Celery worker and Celery beat as
children, each in a process group of its own. ``Supervisor.poll`` notices a child that
exited (a crash, an OOM kill, ``kill -9``), kills whatever is left of its process group
(a pool child, an embedded beat: nothing is orphaned), logs it, and starts it again
after a back-off: ``BACKOFF_FIRST_S``, doubling per restart up to ``BACKOFF_MAX_S``, back
to the first once a child has run ``STABLE_AFTER_S``. The other children (and the
embedded PostgreSQL, which is not a child) keep serving meanwhile. ``stop`` ends them
all: SIGTERM to each group, SIGKILL to what is left after ``STOP_TIMEOUT_S``.

Plain Python (no Django), so it is tested with real short-lived processes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

BACKOFF_FIRST_S: Final = 1.0
BACKOFF_MAX_S: Final = 60.0
STABLE_AFTER_S: Final = 60.0
STOP_TIMEOUT_S: Final = 15.0


def _exit_words(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


@dataclass
class Child:
    name: str
    argv: Sequence[str]
    env: Mapping[str, str] | None = None
    cwd: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    started_at: float = 0.0
    restarts: int = 0
    backoff_s: float = BACKOFF_FIRST_S
    restart_at: float | None = None
    pids: list[int] = field(default_factory=list)

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None


class Supervisor:
    def __init__(
        self,
        *,
        log: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        backoff_first_s: float = BACKOFF_FIRST_S,
        backoff_max_s: float = BACKOFF_MAX_S,
        stable_after_s: float = STABLE_AFTER_S,
    ) -> None:
        self.log = log
        self.clock = clock
        self.backoff_first_s = backoff_first_s
        self.backoff_max_s = backoff_max_s
        self.stable_after_s = stable_after_s
        self.children: dict[str, Child] = {}

    def add(
        self,
        name: str,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Child:
        child = Child(name, list(argv), env, cwd, backoff_s=self.backoff_first_s)
        self.children[name] = child
        return child

    def _start(self, child: Child) -> None:
        child.process = subprocess.Popen(
            list(child.argv),
            env=dict(child.env) if child.env is not None else None,
            cwd=child.cwd,
            start_new_session=True,  # its own process group: what it forks goes with it
        )
        child.started_at = self.clock()
        child.restart_at = None
        child.pids.append(child.process.pid)

    def start(self) -> None:
        for child in self.children.values():
            self._start(child)
            self.log(f"{child.name} started (pid {child.pid})")

    @staticmethod
    def _kill_group(pid: int, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)

    def poll(self) -> None:
        """Restart what died (after its back-off); call it every fraction of a second."""
        now = self.clock()
        for child in self.children.values():
            process = child.process
            if process is not None and child.restart_at is None:
                code = process.poll()
                if code is None:
                    continue
                # Whatever it left behind in its group (pool children, beat) goes too.
                self._kill_group(process.pid, signal.SIGKILL)
                if now - child.started_at >= self.stable_after_s:
                    child.backoff_s = self.backoff_first_s
                child.restart_at = now + child.backoff_s
                self.log(
                    f"{child.name} (pid {process.pid}) stopped: {_exit_words(code)}; "
                    f"restarting in {child.backoff_s:g} s"
                )
                child.backoff_s = min(child.backoff_s * 2, self.backoff_max_s)
            if child.restart_at is not None and now >= child.restart_at:
                child.restarts += 1
                self._start(child)
                self.log(f"{child.name} restarted (pid {child.pid}, restart {child.restarts})")

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        running = [
            c for c in self.children.values() if c.process is not None and c.process.poll() is None
        ]
        for child in running:
            assert child.process is not None
            self._kill_group(child.process.pid, signal.SIGTERM)
        deadline = self.clock() + timeout_s
        for child in running:
            assert child.process is not None
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=max(0.0, deadline - self.clock()))
            self._kill_group(child.process.pid, signal.SIGKILL)
            child.process.wait()
