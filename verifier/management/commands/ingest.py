"""``manage.py ingest PATH... --workspace SLUG``: ingest files with a progress bar.

By default the stages run in this process (a background thread runs the Celery tasks
eagerly while the foreground draws progress from the job row). ``--queue`` hands the
job to the Celery workers instead and only watches it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, transaction

from verifier.models import IngestJob
from verifier.selectors.ingest import ingest_job_is_finished, job_progress_rows
from verifier.selectors.workspaces import workspace_get
from verifier.services.ingest import ingest_job_start
from verifier.services.ingest_create import IngestInputError, SourceUpload, ingest_job_create
from verifier.services.ingest_input import format_for_filename

BAR_WIDTH = 30
POLL_SECONDS = 0.5
SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm")


def _files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.suffix.lower() in SUFFIXES)
        elif path.is_file():
            found.append(path)
        else:
            raise CommandError(f"No such file or folder: {raw}")
    return found


def _bar(job: IngestJob) -> str:
    rows = job_progress_rows(job)
    finished_stages = sum(1 for r in rows if r["total"] is not None and r["done"] == r["total"])
    current = next((r for r in rows if r["current"]), None)
    share = finished_stages / len(rows)
    if current and current["total"]:
        share = (finished_stages + current["done"] / current["total"]) / len(rows)
    share = 1.0 if job.status in ("succeeded", "degraded") else min(share, 1.0)
    filled = int(BAR_WIDTH * share)
    detail = f"{current['stage']} {current['done']}/{current['total']}" if current else job.status
    return f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * share:5.1f}% {detail:<24}"


class Command(BaseCommand):
    help = "Ingest text, Markdown or HTML files as sources and run the pipeline."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", help="Files or folders")
        parser.add_argument("--workspace", required=True, help="Workspace slug")
        parser.add_argument("--label", default="", help="A label for the job")
        parser.add_argument(
            "--domain-pack",
            default="",
            help="default: general for a new source; a source already stored keeps its own",
        )
        parser.add_argument(
            "--queue", action="store_true", help="Run on the Celery workers; only watch here."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = workspace_get(slug=options["workspace"])
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        uploads = [
            SourceUpload(
                text=path.read_text(encoding="utf-8"),
                title=path.name,
                ref=f"source:{path.stem.lower()}",
                format=format_for_filename(path.name),
                domain_pack=options["domain_pack"],
            )
            for path in _files(options["paths"])
        ]
        try:
            job = ingest_job_create(
                workspace=workspace, sources=uploads, label=options["label"], start=False
            )
        except IngestInputError as exc:
            raise CommandError(exc.message) from exc
        self.stderr.write(f"Job #{job.pk}: {len(uploads)} source(s)")
        worker = None if options["queue"] else self._run_in_thread(job)
        if options["queue"]:
            with transaction.atomic():
                ingest_job_start(job=job)
        while True:
            job.refresh_from_db()
            self.stderr.write(_bar(job), ending="")
            self.stderr.flush()
            if ingest_job_is_finished(job) and (worker is None or not worker.is_alive()):
                break
            time.sleep(POLL_SECONDS)
        self.stderr.write("")
        report = job.quality_report or {}
        trust = (report.get("trust") or {}).get("score")
        quality = report.get("quality") or {}
        self.stdout.write(
            f"job #{job.pk} {job.status}: {report.get('claims', 0)} claims, "
            f"trust score {trust}, G2 {'pass' if quality.get('g2', {}).get('passed') else 'fail'}, "
            f"{len(job.errors)} failed item(s)"
        )
        for warning in job.warnings or []:
            self.stdout.write(f"warning: {warning['message']}")

    def _run_in_thread(self, job: IngestJob) -> threading.Thread:
        from config.celery import app

        app.conf.task_always_eager = True
        app.conf.task_eager_propagates = True

        def run() -> None:
            try:
                with transaction.atomic():
                    ingest_job_start(job=job)
            finally:
                connection.close()

        thread = threading.Thread(target=run, name=f"ingest-job-{job.pk}", daemon=True)
        thread.start()
        return thread
