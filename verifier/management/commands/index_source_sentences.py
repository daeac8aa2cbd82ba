"""``manage.py index_source_sentences [--workspace W]``: fill the sentence index
(``SourceSentence``) for the current version of every source (of one workspace), e.g.
for sources ingested before the index existed or stored outside ingest. Idempotent:
spans already indexed are skipped; claims' stored vectors are reused. Prints JSON
counts."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.models import SourceVersion, Workspace
from verifier.services.sentence_index import source_sentences_index


class Command(BaseCommand):
    help = "Index the sentences of every source's current version (for POST /worker/verify)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", help="workspace slug (default: every workspace)")

    def handle(self, *args: Any, **options: Any) -> None:
        versions = SourceVersion.objects.all()
        if options["workspace"]:
            workspace = Workspace.objects.filter(slug=options["workspace"]).first()
            if workspace is None:
                raise CommandError(f"no workspace {options['workspace']!r}", returncode=2)
            versions = versions.filter(source__workspace=workspace)
        # only the current versions are indexed; the service skips the others
        counts = source_sentences_index(version_pks=list(versions.values_list("pk", flat=True)))
        self.stdout.write(json.dumps(asdict(counts)))
