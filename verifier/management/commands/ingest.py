"""``manage.py ingest PATH... --workspace SLUG``: ingest files with a progress bar.

By default the stages run in this process (a background thread runs the Celery tasks
eagerly while the foreground draws progress from the job row). ``--queue`` hands the
job to the Celery workers instead and only watches it.

Files are read as the console reads uploads (``verifier.upload_text``: UTF-8, or UTF-16
/ UTF-32 with a byte-order mark). A file that cannot be a source (missing, empty, not
text, two files under one ref) stops the command before anything is stored, with one
line naming the file and a non-zero exit. The exit is non-zero too when the job ends
failed or cancelled; Ctrl-C stops watching and says what becomes of the job.

The stages run here share the job with any Celery worker on the same database (a
console started on the same data folder): a worker's watchdog or start-up may send a
stage of it again, and a worker's shard then takes part or all of the stage. When the
run here stops with the job still open and no failure of its own, the workers hold the
rest: the command says so and follows the job to its end as ``--queue`` does. An
exception that ends the run here is shown as the command's error.
"""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import InterfaceError, OperationalError, connection, transaction

from verifier import vocabulary
from verifier.models import IngestJob
from verifier.selectors.ingest import ingest_job_is_finished, job_progress_rows
from verifier.selectors.workspaces import workspace_get
from verifier.services.ingest import ingest_job_start
from verifier.services.ingest_create import (
    MAX_SOURCES_PER_JOB,
    IngestInputError,
    SourceUpload,
    ingest_job_create,
)
from verifier.services.ingest_input import format_for_filename
from verifier.upload_text import decode_text

BAR_WIDTH = 30
POLL_SECONDS = 0.5
DB_WAIT_SECONDS = 120
SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm")
FINISHED_OK = ("succeeded", "degraded")


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


def _read(path: Path) -> str:
    """The file's text, or a ``CommandError`` that names it and says why not."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CommandError(f"{path}: cannot read it ({exc.strerror or exc}).") from exc
    if not data.strip():
        raise CommandError(f"{path} is empty.")
    try:
        text = decode_text(data)
    except UnicodeDecodeError as exc:
        raise CommandError(
            f"{path} is not UTF-8 text (nor UTF-16 with a byte-order mark); "
            "convert it to UTF-8 first."
        ) from exc
    if "\x00" in text:
        raise CommandError(f"{path} contains a NUL character: it is not a text file.")
    return text


def _upload(path: Path, domain_pack: str) -> SourceUpload:
    return SourceUpload(
        text=_read(path),
        title=path.name,  # named by it as the Ingest page names an upload (``file_ref``)
        format=format_for_filename(path.name),
        domain_pack=domain_pack,
    )


def _share(rows: list[dict[str, Any]], stage: str, status: str) -> float:
    """How much of the job is done, 0..1: each stage before the job's own counts whole
    (the pipeline moved past it), the job's stage counts its handled items (done or
    failed; a stage with nothing to do is whole), later ones nothing. Each stage is
    counted once, so the share never goes down as the job moves on."""
    if status in FINISHED_OK:
        return 1.0
    stages = [r["stage"] for r in rows]
    if stage not in stages:
        return 0.0
    at = stages.index(stage)
    row = rows[at]
    handled = row["done"] + row["failed"]
    total = row["total"]
    part = 0.0 if total is None else min(handled / total, 1.0) if total else 1.0
    return (at + part) / len(rows)


def _bar(job: IngestJob) -> str:
    rows = job_progress_rows(job)
    current = next((r for r in rows if r["current"]), None)
    share = _share(rows, job.stage, job.status)
    filled = int(BAR_WIDTH * share)
    detail = f"{current['stage']} {current['done']}/{current['total']}" if current else job.status
    return f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * share:5.1f}% {detail:<24}"


def _input_error(exc: IngestInputError, paths: list[Path]) -> str:
    """The refusal's message, naming the file where it names an upload by index."""
    details = exc.details or {}
    index, other = details.get("index"), details.get("other_index")
    if isinstance(index, int) and isinstance(other, int) and other < len(paths):
        return (
            f"{paths[other]} and {paths[index]} would both be stored as the source "
            f"{details.get('ref')!r}; ingest them in separate runs or rename one."
        )
    if isinstance(index, int) and index < len(paths):
        message = exc.message.removeprefix(f"sources[{index}]: ")
        return f"{paths[index]}: {message}"
    return exc.message


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
        paths = _files(options["paths"])
        if not paths:
            raise CommandError(
                f"No {', '.join(SUFFIXES)} file in {' '.join(options['paths'])}: nothing to ingest."
            )
        if len(paths) > MAX_SOURCES_PER_JOB:
            raise CommandError(
                f"{len(paths)} files: a job takes at most {MAX_SOURCES_PER_JOB} sources; "
                "ingest them in several runs."
            )
        uploads = [_upload(path, options["domain_pack"]) for path in paths]
        try:
            job = ingest_job_create(
                workspace=workspace, sources=uploads, label=options["label"], start=False
            )
        except IngestInputError as exc:
            raise CommandError(_input_error(exc, paths)) from exc
        self.stderr.write(f"Job #{job.pk}: {vocabulary.counted(len(uploads), 'source')}")
        self._verbosity = int(options["verbosity"])
        self._workers_hold_it = bool(options["queue"])
        worker = None if options["queue"] else _RunHere(job)
        if options["queue"]:
            with transaction.atomic():
                ingest_job_start(job=job)
        try:
            self._watch(job, worker)
        except KeyboardInterrupt:
            self.stderr.write("")
            where = (
                "the Celery workers go on with it"
                if self._workers_hold_it
                else "the Celery workers take it over once its heartbeat is stale"
            )
            raise CommandError(
                f"Interrupted: job #{job.pk} is {job.status}; {where} "
                "(cancel it on its page if it should stop)."
            ) from None
        report = job.quality_report or {}
        trust = (report.get("trust") or {}).get("score")
        quality = report.get("quality") or {}
        self.stdout.write(
            f"job #{job.pk} {job.status}: {vocabulary.counted(report.get('claims', 0), 'claim')}, "
            f"trust score {trust}, G2 {'pass' if quality.get('g2', {}).get('passed') else 'fail'}, "
            f"{vocabulary.counted(len(job.errors), 'failed item')}"
        )
        for warning in job.warnings or []:
            self.stdout.write(f"warning: {warning['message']}")
        if job.status not in FINISHED_OK:
            for error in job.errors or []:
                self.stdout.write(f"error: {error['stage']} {error['item']}: {error['error']}")
            raise CommandError(f"job #{job.pk} ended {job.status}.")

    def _refresh(self, job: IngestJob) -> None:
        """Read the job again, waiting out a database restart (``make run`` starts the
        embedded PostgreSQL again): one line when it goes, one when it is back, and a
        ``CommandError`` when it stays away ``DB_WAIT_SECONDS``."""
        lost_at: float | None = None
        while True:
            try:
                job.refresh_from_db()
            except (OperationalError, InterfaceError) as exc:
                connection.close()
                now = time.monotonic()
                if lost_at is None:
                    lost_at = now
                    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                    self.stderr.write(f"\nThe database is unreachable ({first}); waiting for it.")
                elif now - lost_at >= DB_WAIT_SECONDS:
                    raise CommandError(
                        f"The database was unreachable for {DB_WAIT_SECONDS} s while watching "
                        f"job #{job.pk}; its page shows how it goes on."
                    ) from None
                time.sleep(POLL_SECONDS)
                continue
            if lost_at is not None:
                self.stderr.write("The database is back.")
            return

    def _watch(self, job: IngestJob, worker: _RunHere | None) -> None:
        while True:
            self._refresh(job)
            self.stderr.write(_bar(job), ending="")
            self.stderr.flush()
            if ingest_job_is_finished(job) and (worker is None or not worker.is_alive()):
                break
            if worker is not None and not worker.is_alive():
                self._run_here_stopped(job, worker)
                worker = None  # the Celery workers hold the job: follow it to its end
                self._workers_hold_it = True
            time.sleep(POLL_SECONDS)
        self.stderr.write("")

    def _run_here_stopped(self, job: IngestJob, worker: _RunHere) -> None:
        """The run here ended with the job still open. Its own exception, or a failed
        item of the stage it stopped at (the store stage's failure keeps the job
        running), is a ``CommandError`` naming it; otherwise the Celery workers took
        the rest of the job (they hold an item of its stage, or their watchdog sent
        the stage again and took its lease) and the command goes on watching."""
        self.stderr.write("")
        where = (
            f"the Celery workers run it again once its heartbeat is stale "
            f"(its page, /ingest/jobs/{job.pk}/, shows it)"
        )
        if worker.error is not None:
            if self._verbosity > 1:
                self.stderr.write(worker.traceback.rstrip())
            raise CommandError(
                f"job #{job.pk}: the run here failed: {_one_line(worker.error)}. "
                f"The job is still {job.status}; {where}."
            )
        failed = [e for e in job.errors or [] if e["stage"] == (job.stage or "")]
        if failed:
            for error in job.errors or []:
                self.stderr.write(f"error: {error['stage']} {error['item']}: {error['error']}")
            raise CommandError(f"job #{job.pk} stopped here while still {job.status}: {where}.")
        self.stderr.write(
            f"job #{job.pk}: the Celery workers took over its {job.stage or 'first'} stage "
            f"(a worker on the same database runs it); following it here until it ends "
            f"(Ctrl-C stops watching, the job goes on; its page: /ingest/jobs/{job.pk}/)."
        )


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class _RunHere:
    """The job's stages run in this process: a thread runs the Celery tasks eagerly and
    keeps the exception that ended it (``error``, ``traceback``) for the command to
    show, instead of letting the thread print it and vanish."""

    def __init__(self, job: IngestJob) -> None:
        from config.celery import app

        app.conf.task_always_eager = True
        app.conf.task_eager_propagates = True
        self.error: BaseException | None = None
        self.traceback = ""
        self._job = job
        self._thread = threading.Thread(target=self._run, name=f"ingest-job-{job.pk}", daemon=True)
        self._thread.start()

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def _run(self) -> None:
        try:
            with transaction.atomic():
                ingest_job_start(job=self._job)
        except BaseException as exc:  # shown by the command (``_run_here_stopped``)
            self.error = exc
            self.traceback = traceback.format_exc()
        finally:
            connection.close()
