"""Two (or more) calls racing on the real database, each in its own thread with its own
connection, paused where a test needs them at a statement of its choosing: what the
race tests share."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

# How long one thread waits for another's step, never for ever: where the other thread
# waits for this one's lock in the database, it never takes its step.
WAIT_S = 5


def at_first_statement(
    *sql_has: str,
    before: Callable[[], Any] = lambda: None,
    after: Callable[[], Any] = lambda: None,
) -> Callable[..., Any]:
    """An execute wrapper that calls ``before`` and ``after`` around the first statement
    containing all of ``sql_has``."""
    done = False

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal done
        hit = not done and all(part in sql for part in sql_has)
        if hit:
            done = True
            before()
        result = execute(sql, params, many, context)
        if hit:
            after()
        return result

    return wrapper


def waiting_for(event: threading.Event) -> Callable[[], None]:
    """Wait for ``event`` a while (``WAIT_S``), not for ever."""
    return lambda: event.wait(WAIT_S) and None


def run_together(*calls: tuple[Callable[[], Any], Any]) -> list[BaseException]:
    """Each (call, execute wrapper) in its own thread, started together; the errors
    they raised."""
    start = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call: Callable[[], Any], wrapper: Any) -> None:
        try:
            start.wait(WAIT_S)
            with connection.execute_wrapper(wrapper):
                call()
        except BaseException as exc:  # surfaced by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=pair) for pair in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(12 * WAIT_S)
    return errors
