"""``manage.py rag_audit --answer FILE --chunks FILE``: the audit as JSON on stdout.

Exit status 1 when the answer is not faithful (so it can gate CI), 2 on bad input.
Nothing is stored; the API and the console store their audits.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.engine import get_judge, judge_batch_size
from verifier.rag import RagInputError, audit_answer, parse_chunks, validate_answer


class Command(BaseCommand):
    help = "Audit a RAG answer against its id-keyed chunks (JSONL or a JSON array)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--answer", required=True, help="file with the answer text")
        parser.add_argument("--chunks", required=True, help="JSONL (or JSON array) file")

    def _read(self, path: str) -> str:
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}", returncode=2) from exc

    def handle(self, *args: Any, **options: Any) -> None:
        answer = self._read(options["answer"])
        raw_chunks = self._read(options["chunks"])
        try:
            validate_answer(answer)
            chunks = parse_chunks(raw_chunks)
        except RagInputError as exc:
            raise CommandError(f"{exc.code}: {exc.message}", returncode=2) from exc
        result = audit_answer(answer, chunks, judge=get_judge(), batch_size=judge_batch_size())
        self.stdout.write(json.dumps(result.as_dict(), ensure_ascii=False, indent=2))
        if not result.faithful:
            sys.exit(1)
