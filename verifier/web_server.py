"""The production web server command line ``make run`` starts: gunicorn serving the WSGI app.

Static files come from the app itself through WhiteNoise (``WHITENOISE_USE_FINDERS``), so
gunicorn needs no separate static route. Defaults suit a small machine; production sets
``SPANPROOF_WEB_WORKERS`` / ``SPANPROOF_WEB_THREADS`` (or runs its own gunicorn).
"""

from __future__ import annotations

from environs import Env

DEFAULT_WORKERS = 2
DEFAULT_THREADS = 4
# Long enough for a console upload or a synchronous verification on a slow judge.
WORKER_TIMEOUT_S = 120
# Each worker loads the query embedder and freezes the garbage collector's view of
# what it loaded before its first request, and its worker class (gthread answering a
# request too large to read with the API's JSON error body) is set there too.
HOOKS = "python:verifier.gunicorn_hooks"


def web_workers() -> int:
    return Env().int("SPANPROOF_WEB_WORKERS", DEFAULT_WORKERS)


def web_threads() -> int:
    return Env().int("SPANPROOF_WEB_THREADS", DEFAULT_THREADS)


def gunicorn_command(*, python: str, addr: str, workers: int, threads: int) -> list[str]:
    """argv for gunicorn serving ``config.wsgi`` on ``addr`` (``host:port``)."""
    if workers < 1 or threads < 1:
        raise ValueError("workers and threads must be at least 1")
    return [
        python,
        "-m",
        "gunicorn",
        "config.wsgi:application",
        "--config",
        HOOKS,
        "--bind",
        addr,
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--timeout",
        str(WORKER_TIMEOUT_S),
        "--graceful-timeout",
        "10",
        "--access-logfile",
        "-",
        "--log-level",
        "warning",
    ]
