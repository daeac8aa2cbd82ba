"""``make run``: migrate, load the demo, serve the console through gunicorn (static files by
WhiteNoise) and start a Celery worker with beat.

Ctrl-C stops the web server, the worker and — when it is the embedded one — PostgreSQL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from config.embedded_postgres import stop_embedded_postgres
from verifier.web_server import gunicorn_command, web_threads, web_workers


class Command(BaseCommand):
    help = "Run the Spanproof console with a Celery worker on the embedded defaults."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000")
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

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        call_command("migrate", interactive=False, verbosity=0)
        if not options["no_demo"]:
            call_command("load_demo")
        self._prepare_query_model()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        python = sys.executable
        children = [
            subprocess.Popen(
                [
                    python,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-B",
                    "--pool=threads",
                    "--concurrency=2",
                    "--loglevel=WARNING",
                    "--schedule",
                    str(settings.DATA_DIR / "celerybeat-schedule"),
                ],
                env=env,
            ),
            subprocess.Popen(
                gunicorn_command(
                    python=python,
                    addr=options["addr"],
                    workers=options["workers"],
                    threads=options["threads"],
                ),
                env=env,
                cwd=settings.BASE_DIR,
            ),
        ]
        self.stdout.write(
            self.style.SUCCESS(
                f"\nSpanproof console: http://{options['addr']}/  "
                f"(ready in {time.monotonic() - started:.1f}s; Ctrl-C stops everything)\n"
            )
        )

        def stop(*_: Any) -> None:
            raise KeyboardInterrupt

        # SIGINT too: a shell that starts us in the background leaves SIGINT ignored, and
        # Python then never raises KeyboardInterrupt for Ctrl-C / ``kill -INT``.
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()
            if settings.EMBEDDED_POSTGRES:
                from django.db import connections

                connections.close_all()
                stop_embedded_postgres(settings.DATA_DIR / "pgdata")
                self.stdout.write("Stopped the web console, the worker and PostgreSQL.")
