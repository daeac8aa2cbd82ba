"""Keeps ``make run``'s processes up: one dead process never takes the others down.

``manage.py run_console`` starts the web server, the Celery worker and Celery beat as
children, each in a process group of its own. ``Supervisor.poll`` notices a child that
exited (a crash, an OOM kill, ``kill -9``), kills whatever is left of its process group
(a pool child, an embedded beat: nothing is orphaned), logs it, and starts it again
after a back-off: ``BACKOFF_FIRST_S``, doubling per restart up to ``BACKOFF_MAX_S``, back
to the first once a child has run ``STABLE_AFTER_S``. The other children keep serving
meanwhile. ``stop`` ends them all: SIGTERM to each group, SIGKILL to what is left after
``STOP_TIMEOUT_S``.

A service that is not a child (the embedded PostgreSQL: it outlives the command that
started it) is *watched*: ``watch`` names a check and a start, ``poll`` runs the check
every ``WATCH_EVERY_S`` and, when it fails, logs it and runs the start after the same
back-off (doubling while the start fails or the service keeps falling over, counted
from when a failed start gave up). Before each start the check runs again: a service
that came up meanwhile (a start that timed out while the server was still recovering,
and then finished) is logged as up, not started twice. A watched service is left
running by ``stop``: whoever owns it stops it.

A supervisor that dies itself (``kill -9``, an OOM kill, a closed terminal that took it
alone) takes its children with it: on Linux each child asks the kernel for
``PARENT_DEATH_SIGNAL`` (SIGTERM: gunicorn and Celery shut down what they started) when
its parent goes (``prctl(PR_SET_PDEATHSIG)``). Before, the children lived on, in process
groups of their own, with nothing to restart them, and the next ``make run`` met them:
a web server already on the port (the new one failing to bind, restarted for ever) and
a second worker and beat on the same broker.

Plain Python (no Django), so it is tested with real short-lived processes.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

BACKOFF_FIRST_S: Final = 1.0
BACKOFF_MAX_S: Final = 60.0
STABLE_AFTER_S: Final = 60.0
STOP_TIMEOUT_S: Final = 15.0
WATCH_EVERY_S: Final = 2.0
# What a child gets when the supervisor dies (Linux, ``prctl(PR_SET_PDEATHSIG)``).
PARENT_DEATH_SIGNAL: Final = signal.SIGTERM
_PR_SET_PDEATHSIG: Final = 1


def _parent_death_signal(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` that has the kernel send ``PARENT_DEATH_SIGNAL`` to the child when
    ``parent`` (the supervisor's process) dies; None where the kernel has no such request
    (not Linux). The signal is sent when the *thread* that started the child ends: the
    supervisor starts and restarts its children from the one thread that polls. A
    parent already gone when the request is made (it died between the fork and here) is
    caught by comparing the parent's id."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None

    def preexec() -> None:  # runs in the child between fork and exec
        prctl(_PR_SET_PDEATHSIG, int(PARENT_DEATH_SIGNAL), 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), PARENT_DEATH_SIGNAL)

    return preexec


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


@dataclass
class Watched:
    """A service ``poll`` checks and starts again (not a child: never stopped here)."""

    name: str
    is_up: Callable[[], bool]
    start: Callable[[], object]
    every_s: float
    backoff_s: float
    check_at: float = 0.0
    restart_at: float | None = None
    up_since: float | None = None
    restarts: int = 0


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
        self.watched: dict[str, Watched] = {}

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

    def watch(
        self,
        name: str,
        *,
        is_up: Callable[[], bool],
        start: Callable[[], object],
        every_s: float = WATCH_EVERY_S,
    ) -> Watched:
        """Check ``is_up`` every ``every_s`` in ``poll``; start it again when it is down."""
        service = Watched(name, is_up, start, every_s, backoff_s=self.backoff_first_s)
        self.watched[name] = service
        return service

    def _poll_watched(self, service: Watched, now: float) -> None:
        if service.restart_at is None:
            if now < service.check_at:
                return
            service.check_at = now + service.every_s
            if service.is_up():
                if service.up_since is None:
                    service.up_since = now
                elif now - service.up_since >= self.stable_after_s:
                    service.backoff_s = self.backoff_first_s
                return
            service.up_since = None
            service.restart_at = now + service.backoff_s
            self.log(f"{service.name} is down; starting it in {service.backoff_s:g} s")
            service.backoff_s = min(service.backoff_s * 2, self.backoff_max_s)
            return
        if now < service.restart_at:
            return
        if service.is_up():  # up meanwhile (a start that timed out but went on, say)
            service.restart_at = None
            service.check_at = now + service.every_s
            self.log(f"{service.name} is up again")
            return
        service.restarts += 1
        try:
            service.start()
        except Exception as exc:  # logged and tried again: the others keep serving
            # From when the start gave up, not from before it: a start that took its
            # whole timeout is not tried again at once.
            service.restart_at = self.clock() + service.backoff_s
            self.log(
                f"{service.name} did not start ({type(exc).__name__}: {exc}); "
                f"trying again in {service.backoff_s:g} s"
            )
            service.backoff_s = min(service.backoff_s * 2, self.backoff_max_s)
            return
        service.restart_at = None
        service.check_at = now + service.every_s
        self.log(f"{service.name} started again (restart {service.restarts})")

    def _start(self, child: Child) -> None:
        child.process = subprocess.Popen(
            list(child.argv),
            env=dict(child.env) if child.env is not None else None,
            cwd=child.cwd,
            start_new_session=True,  # its own process group: what it forks goes with it
            preexec_fn=_parent_death_signal(os.getpid()),  # and it goes with the supervisor
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
        for service in self.watched.values():
            self._poll_watched(service, now)
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
