"""``make run``: migrate, load the demo, serve the console through gunicorn (static files by
WhiteNoise), and start a Celery worker and Celery beat.

The three run under ``verifier.supervisor``: one that dies (a crash, ``kill -9``) is
restarted with a back-off and a log line, and the others keep serving meanwhile. The
embedded PostgreSQL (not a child: it outlives the command) is watched the same way: when
it stops, it is started again and the web, worker and beat reconnect. Ctrl-C (or
SIGTERM) stops all three and — when it is the embedded one — PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from config.embedded_postgres import (
    embedded_postgres_running,
    ensure_embedded_postgres,
    stop_embedded_postgres,
)
from verifier.supervisor import Supervisor
from verifier.web_server import gunicorn_command, web_threads, web_workers

POLL_SECONDS = 0.5
DEFAULT_HOST = "127.0.0.1"


def console_addr(value: str) -> str:
    """``--addr``: ``host:port``, or a port alone on 127.0.0.1 (as Django's development server takes
    it). gunicorn read a bare ``8118`` as a host name on port 8000 and failed to bind."""
    text = value.strip()
    host, colon, port = text.rpartition(":")
    if not colon:
        host, port = DEFAULT_HOST, text
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not host:port or a port (e.g. 127.0.0.1:8080, or 8080)"
        )
    return f"{host}:{int(port)}"


def first_sign_in_hint(addr: str) -> str | None:
    """Started without the demo on a database with no user yet: how to get the first
    sign-in (nothing in the console can make it). ``None`` once any user exists."""
    from django.contrib.auth import get_user_model

    if get_user_model().objects.exists():
        return None
    return (
        "No one can sign in yet. Create the first admin in another shell (with the same "
        "SPANPROOF_DATA, if you set it):\n"
        "  .venv/bin/python manage.py createsuperuser\n"
        f"then sign in at http://{addr}/ and follow the home page: it links to the Django "
        "admin to add a workspace and make yourself its admin; the console's Members page "
        "adds the rest of the team."
    )


class Command(BaseCommand):
    help = "Run the Spanproof console with a Celery worker on the embedded defaults."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--addr",
            type=console_addr,
            default=f"{DEFAULT_HOST}:8000",
            help="host:port to serve the console on, or a port alone (default: 127.0.0.1:8000)",
        )
        parser.add_argument("--no-demo", action="store_true", help="Skip loading demo data")
        parser.add_argument(
            "--workers",
            type=int,
            default=web_workers(),
            help="gunicorn worker processes (default: $SPANPROOF_WEB_WORKERS or 2)",
        )
        parser.add_argument(
            "--threads",
            type=int,
            default=web_threads(),
            help="threads per gunicorn worker (default: $SPANPROOF_WEB_THREADS or 4)",
        )

    def _prepare_query_model(self) -> None:
        """Build the cached int8 query model now (first run only, ~10 s), not in the first
        retrieve request of each web worker."""
        from verifier.embeddings import EmbeddingUnavailable, embed_text

        try:
            embed_text("warm up")
        except EmbeddingUnavailable as exc:
            self.stderr.write(f"Query embedding unavailable ({exc}); retrieval falls back to text.")

    def _log(self, line: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        self.stdout.write(f"[{stamp}] {line}")
        self.stdout.flush()

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=0)
        if not options["no_demo"]:
            call_command("load_demo")
        self._prepare_query_model()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        python = sys.executable
        celery = [python, "-m", "celery", "-A", "config"]
        supervisor = Supervisor(log=self._log)
        supervisor.add(
            "web",
            gunicorn_command(
                python=python,
                addr=options["addr"],
                workers=options["workers"],
                threads=options["threads"],
            ),
            env=env,
            cwd=settings.BASE_DIR,
        )
        supervisor.add(
            "worker",
            [*celery, "worker", "--pool=threads", "--concurrency=2", "--loglevel=WARNING"],
            env=env,
            cwd=settings.BASE_DIR,
        )
        # Beat is a process of its own (not the worker's -B child): it is restarted on its
        # own, and a killed worker never leaves an orphaned beat queueing tasks.
        supervisor.add(
            "beat",
            [
                *celery,
                "beat",
                "--loglevel=WARNING",
                "--schedule",
                str(settings.DATA_DIR / "celerybeat-schedule"),
            ],
            env=env,
            cwd=settings.BASE_DIR,
        )

        if settings.EMBEDDED_POSTGRES:
            pgdata = settings.DATA_DIR / "pgdata"
            supervisor.watch(
                "PostgreSQL (embedded)",
                is_up=lambda: embedded_postgres_running(pgdata),
                start=lambda: ensure_embedded_postgres(pgdata),
            )

        def stop(*_: Any) -> None:
            raise KeyboardInterrupt

        # SIGINT too: a shell that starts us in the background leaves SIGINT ignored, and
        # Python then never raises KeyboardInterrupt for Ctrl-C / ``kill -INT``.
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            supervisor.start()
            self.stdout.write(
                self.style.SUCCESS(
                    f"\nSpanproof console: http://{options['addr']}/  "
                    f"(ready in {time.monotonic() - started:.1f}s; Ctrl-C stops everything)\n"
                )
            )
            hint = first_sign_in_hint(options["addr"]) if options["no_demo"] else None
            if hint is not None:
                self.stdout.write(self.style.WARNING(hint))
            while True:
                supervisor.poll()
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            pass
        finally:
            supervisor.stop()
            if settings.EMBEDDED_POSTGRES:
                from django.db import connections

                connections.close_all()
                stop_embedded_postgres(settings.DATA_DIR / "pgdata")
                self.stdout.write("Stopped the web console, the worker, beat and PostgreSQL.")
