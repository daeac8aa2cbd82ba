"""``manage.py verify_claims claims.jsonl --workspace W [--source-dir DIR]``.

Each input line is ``{"text", "source", "quote"?, "external_id"?, "metadata"?}`` (the
body of ``POST /connect/v1/claims/verify``, one claim a line), or the file is a CSV with
a header (``verifier.services.claim_lines``). Files in ``--source-dir``
(text, Markdown, HTML) are created or versioned as sources first, each named by its
file name as the Ingest page names an upload (``file_ref``: ``Harbour.md`` →
``source:harbour.md``). Results go to stdout (or ``--output``) as JSONL, one line per
input claim, in input order; a progress bar goes to stderr. Exit status 1 when any claim is
contradicted, is not supported, or has an error — usable as a CI gate, like
``rag_audit``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier import vocabulary
from verifier.models import Workspace
from verifier.selectors.claim_verification import verification_results
from verifier.selectors.workspaces import workspace_get
from verifier.services.claim_lines import ClaimLinesError, parse_claim_lines
from verifier.services.claim_verification import (
    ClaimSubmission,
    ClaimVerifyInputError,
    SourceSubmission,
    verification_job_create,
    verification_job_run,
)
from verifier.services.ingest_create import file_ref
from verifier.services.ingest_input import format_for_filename, source_text

BAR_WIDTH = 30
SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm")
UNKNOWN_REF_FILES_SHOWN = 10


def read_claims(path: Path) -> list[ClaimSubmission]:
    """Parse the JSONL (or CSV) file; a bad line stops everything with its number."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"Cannot read {path}: {exc}") from exc
    try:
        return parse_claim_lines(text)
    except ClaimLinesError as exc:
        raise CommandError(f"{path}:{exc.line}: {exc.message}") from exc


def read_sources(folder: Path, *, workspace: Workspace) -> list[SourceSubmission]:
    if not folder.is_dir():
        raise CommandError(f"No such folder: {folder}")
    return [
        SourceSubmission(
            ref=file_ref(workspace=workspace, name=path.name),
            title=path.name,
            text=source_text(path.read_text(encoding="utf-8"), format_for_filename(path.name)),
        )
        for path in sorted(folder.rglob("*"))
        if path.suffix.lower() in SUFFIXES
    ]


def unknown_ref_hint(sources: list[SourceSubmission]) -> str:
    """What a claim's ``source`` must be, said where one named no stored source: the
    refs the folder's files were stored as, or how to name a file at all."""
    if sources:
        refs = ", ".join(s.ref for s in sources[:UNKNOWN_REF_FILES_SHOWN])
        more = len(sources) - UNKNOWN_REF_FILES_SHOWN
        return (
            "A claim's \"source\" is a source's ref: the files in --source-dir are "
            f"{refs}{f' and {more} more' if more > 0 else ''} "
            "(source: and the file name in lower case, as the Ingest page names an upload)."
        )
    return (
        "A claim's \"source\" is a source's ref (the console's Sources page lists them); "
        "pass --source-dir to store the cited files first, each as source: and its file "
        "name in lower case (harbour.md is source:harbour.md)."
    )


def failing(row: dict[str, Any]) -> bool:
    return bool(row["status"] != "verified" or row["state"] != "supported")


class Command(BaseCommand):
    help = "Verify claims (JSONL) against the sources they cite; results as JSONL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("claims", help="JSONL file, one claim a line")
        parser.add_argument("--workspace", required=True, help="Workspace slug")
        parser.add_argument(
            "--source-dir",
            help=(
                "Create or version this folder's .txt, .md and .html files as sources "
                "first, each named source:<file name, lower case> as the Ingest page names "
                "an upload"
            ),
        )
        parser.add_argument("--policy", default="", help="Policy of the active rule set")
        parser.add_argument("--output", help="Write the JSONL results here, not to stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = workspace_get(slug=options["workspace"])
        if workspace is None:
            raise CommandError(f"No workspace with slug {options['workspace']!r}.")
        claims = read_claims(Path(options["claims"]))
        folder = options["source_dir"]
        sources = read_sources(Path(folder), workspace=workspace) if folder else []
        try:
            job = verification_job_create(
                workspace=workspace,
                claims=claims,
                sources=sources,
                policy=options["policy"],
                enqueue=False,
            )
        except ClaimVerifyInputError as exc:
            errors = exc.details.get("errors") or []
            if any(e.get("code") == "unknown_source" for e in errors):
                raise CommandError(f"{exc.message} {unknown_ref_hint(sources)}") from exc
            raise CommandError(exc.message) from exc
        self.stderr.write(f"Verification job #{job.pk}: {vocabulary.counted(len(claims), 'claim')}")
        self._bar(0, job.total)
        job = verification_job_run(job_id=job.pk, on_progress=self._bar)
        self.stderr.write("")
        results = verification_results(workspace=workspace, items=job.items)
        lines = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in results)
        if options["output"]:
            Path(options["output"]).write_text(lines, encoding="utf-8")
        else:
            self.stdout.write(lines, ending="")
        failed = sum(1 for row in results if failing(row))
        if any((row.get("error") or {}).get("code") == "unknown_source" for row in results):
            self.stderr.write(unknown_ref_hint(sources))
        self.stderr.write(
            f"{vocabulary.counted(len(results), 'claim')}: {len(results) - failed} supported, "
            f"{failed} not"
        )
        if failed:
            sys.exit(1)

    def _bar(self, done: int, total: int) -> None:
        share = done / total if total else 1.0
        filled = int(BAR_WIDTH * share)
        self.stderr.write(
            f"\r[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {100 * share:5.1f}% {done}/{total}",
            ending="",
        )
        self.stderr.flush()
