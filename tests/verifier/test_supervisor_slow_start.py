"""A watched service whose start takes its whole timeout (the embedded PostgreSQL
replaying its log after a ``kill -9``): the back-off counts from when the start gave up,
so it is not started again in the same instant, and a service that came up meanwhile is
logged as up, not started again."""

from __future__ import annotations

from verifier.supervisor import Supervisor


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class SlowService:
    """Its start blocks ``timeout_s`` and fails, though the server goes on starting and
    is up ``recovers_after`` starts later."""

    def __init__(self, clock: Clock, *, timeout_s: float, recovers_after: int) -> None:
        self.clock = clock
        self.timeout_s = timeout_s
        self.up = True
        self.starts = 0
        self.recovers_after = recovers_after

    def is_up(self) -> bool:
        return self.up

    def start(self) -> None:
        self.starts += 1
        self.clock.now += self.timeout_s
        if self.starts >= self.recovers_after:
            self.up = True
        raise TimeoutError("pg_ctl timed out")


def _run(supervisor: Supervisor, clock: Clock, seconds: float, step: float = 0.5) -> None:
    end = clock.now + seconds
    while clock.now < end:
        supervisor.poll()
        clock.now += step


def test_a_start_that_times_out_is_not_tried_again_at_once_and_is_seen_up() -> None:
    clock, lines = Clock(), []
    supervisor = Supervisor(log=lines.append, clock=clock, backoff_first_s=1, backoff_max_s=8)
    db = SlowService(clock, timeout_s=10, recovers_after=1)
    supervisor.watch("db", is_up=db.is_up, start=db.start, every_s=2)
    db.up = False
    _run(supervisor, clock, 30)
    assert db.starts == 1 and db.up
    assert lines == [
        "db is down; starting it in 1 s",
        "db did not start (TimeoutError: pg_ctl timed out); trying again in 2 s",
        "db is up again",
    ]
