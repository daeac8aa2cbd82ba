"""Claims to verify, written as lines: JSONL (one object a line) or CSV with a header.

The same reader serves ``manage.py verify_claims`` and the console's "Verify claims"
page. JSONL objects take the keys of ``POST /connect/v1/claims/verify``'s claims
(``text``, ``source``, ``quote``, ``external_id``, ``metadata``); CSV takes the header
columns ``text`` (required), ``source``, ``quote``, ``external_id``. A claim naming no
source cites ``default_source``.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from verifier.errors import ApplicationError
from verifier.services.claim_verification import ClaimSubmission
from verifier.untrusted_input import JsonTooDeep, loads_bounded

JSON_KEYS = frozenset({"text", "source", "quote", "external_id", "metadata"})
CSV_COLUMNS = frozenset({"text", "source", "quote", "external_id"})


class ClaimLinesError(ApplicationError, ValueError):
    """A line that cannot be read; ``line`` is 1-based, ``message`` says what is wrong
    with it (``str()`` is ``line N: message``)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__("invalid_claim_lines", message, {"line": line})
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _claim(row: dict[str, Any], line: int, default_source: str) -> ClaimSubmission:
    text, source = row.get("text"), row.get("source")
    if source in (None, ""):
        source = default_source
    if not isinstance(text, str):
        raise ClaimLinesError(line, "needs a text")
    if isinstance(source, bool) or not isinstance(source, str | int) or source == "":
        raise ClaimLinesError(line, "names no source (and no default source was chosen)")
    quote, metadata = row.get("quote"), row.get("metadata") or {}
    if quote is not None and not isinstance(quote, str):
        raise ClaimLinesError(line, "quote must be a string")
    if not isinstance(metadata, dict):
        raise ClaimLinesError(line, "metadata must be an object")
    return ClaimSubmission(
        text=text,
        source=str(source),
        quote=quote or None,
        external_id=str(row.get("external_id") or ""),
        metadata=metadata,
    )


def _jsonl(text: str, default_source: str) -> list[ClaimSubmission]:
    claims = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = loads_bounded(line)
        except JsonTooDeep as exc:
            raise ClaimLinesError(number, exc.message) from exc
        except json.JSONDecodeError as exc:
            raise ClaimLinesError(number, f"not JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise ClaimLinesError(number, "each line must be a JSON object")
        unknown = set(row) - JSON_KEYS
        if unknown:
            raise ClaimLinesError(number, f"unknown keys {sorted(unknown)}")
        claims.append(_claim(row, number, default_source))
    return claims


def _csv(text: str, default_source: str) -> list[ClaimSubmission]:
    reader = csv.DictReader(io.StringIO(text))
    header = set(reader.fieldnames or [])
    if "text" not in header:
        raise ClaimLinesError(1, "the CSV header needs a text column")
    unknown = header - CSV_COLUMNS
    if unknown:
        raise ClaimLinesError(1, f"unknown columns {sorted(unknown)}")
    claims = []
    for row in reader:
        if not any((value or "").strip() for value in row.values()):
            continue
        claims.append(_claim(dict(row), reader.line_num, default_source))
    return claims


def parse_claim_lines(text: str, *, default_source: str = "") -> list[ClaimSubmission]:
    """JSONL when the first non-blank character is ``{``, else CSV."""
    stripped = text.lstrip("\ufeff").lstrip()
    if not stripped:
        return []
    if stripped.startswith("{"):
        return _jsonl(text.lstrip("\ufeff"), default_source)
    return _csv(text.lstrip("\ufeff"), default_source)
