"""``Supervisor.watch``: a service that is not a child (the embedded PostgreSQL) is
checked every few seconds and started again when it is down, after a back-off that
doubles while starting it fails; a service that is up is left alone."""

from __future__ import annotations

from verifier.supervisor import Supervisor


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Service:
    def __init__(self, *, failures: int = 0) -> None:
        self.up = True
        self.starts = 0
        self.failures = failures

    def start(self) -> None:
        self.starts += 1
        if self.failures:
            self.failures -= 1
            raise RuntimeError("socket busy")
        self.up = True


def _run(supervisor: Supervisor, clock: Clock, seconds: float, step: float = 0.5) -> None:
    end = clock.now + seconds
    while clock.now < end:
        supervisor.poll()
        clock.now += step


def test_a_service_that_is_down_is_started_again_after_a_doubling_back_off() -> None:
    clock, lines = Clock(), []
    supervisor = Supervisor(log=lines.append, clock=clock, backoff_first_s=1, backoff_max_s=4)
    db = Service(failures=2)
    watched = supervisor.watch("db", is_up=lambda: db.up, start=db.start, every_s=2)
    _run(supervisor, clock, 10)
    assert db.starts == 0 and lines == []  # up: never started
    db.up = False
    _run(supervisor, clock, 20)
    assert db.up and db.starts == 3 and watched.restarts == 3
    assert lines == [
        "db is down; starting it in 1 s",
        "db did not start (RuntimeError: socket busy); trying again in 2 s",
        "db did not start (RuntimeError: socket busy); trying again in 4 s",
        "db started again (restart 3)",
    ]


def test_stop_leaves_a_watched_service_alone() -> None:
    clock, lines = Clock(), []
    supervisor = Supervisor(log=lines.append, clock=clock)
    db = Service()
    supervisor.watch("db", is_up=lambda: db.up, start=db.start)
    supervisor.poll()
    supervisor.stop(timeout_s=1)
    assert db.up and db.starts == 0
