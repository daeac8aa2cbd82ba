"""``manage.py import_transcript FILE --workspace SLUG [--ref REF] [--title TITLE]``.

Stores a JSON/JSONL transcript as a hashed source version with turn offsets and prints
the transcript id, whether it was new (``created``; the same turns again write nothing),
source ref and SHA-256 as JSON. Exit status 2 on bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.memory import TranscriptInputError
from verifier.models import Workspace
from verifier.services.memory import memory_transcript_import


class Command(BaseCommand):
    help = "Import a transcript (JSON array/object of turns, or JSONL) for memory checks."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", help="transcript file (.json or .jsonl)")
        parser.add_argument("--workspace", required=True, help="workspace slug")
        parser.add_argument("--ref", default="", help="source ref (default transcript:<sha>)")
        parser.add_argument("--title", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"no workspace {options['workspace']!r}", returncode=2)
        try:
            raw = Path(options["path"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {options['path']}: {exc}", returncode=2) from exc
        try:
            write = memory_transcript_import(
                workspace=workspace, data=raw, ref=options["ref"], title=options["title"]
            )
        except TranscriptInputError as exc:
            raise CommandError(f"{exc.code}: {exc.message}", returncode=2) from exc
        row = write.transcript
        self.stdout.write(
            json.dumps(
                {
                    "id": row.pk,
                    "created": write.created,
                    "ref": row.source.ref,
                    "version": row.version.number,
                    "sha256": row.version.sha256,
                    "turns": len(row.turns),
                    "complete": row.complete,
                }
            )
        )
