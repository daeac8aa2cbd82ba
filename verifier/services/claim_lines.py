"""Claims to verify, written as lines: JSONL (one object a line) or CSV with a header.

The same reader serves ``manage.py verify_claims`` and the console's "Verify claims"
page. JSONL objects take the keys of ``POST /connect/v1/claims/verify``'s claims
(``text``, ``source``, ``quote``, ``external_id``, ``metadata``); CSV takes the header
columns ``text`` (required), ``source``, ``quote``, ``external_id``. A claim naming no
source cites ``default_source``.

Every line read meets ``verifier.untrusted_input``'s rule (no NUL, no lone surrogate,
keys included) as the API's bodies do: a JSON escape such as ``"\\u0000"`` passes the
request guard as plain characters and becomes one only here. A line that cannot be read
(bad JSON, CSV the ``csv`` module refuses, more fields than the header, an external id
longer than the column) is a ``ClaimLinesError`` naming its line, never a crash.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterator
from typing import Any, Final, cast

from verifier.errors import ApplicationError
from verifier.models import Claim
from verifier.services.claim_verification import ClaimSubmission
from verifier.untrusted_input import (
    JsonTooDeep,
    NonFiniteNumber,
    loads_bounded,
    unstorable_location,
)

JSON_KEYS = frozenset({"text", "source", "quote", "external_id", "metadata"})
CSV_COLUMNS = frozenset({"text", "source", "quote", "external_id"})
# The column's own length: a longer id would fail the insert.
MAX_EXTERNAL_ID_CHARS: Final = cast(int, Claim._meta.get_field("external_id").max_length)


class ClaimLinesError(ApplicationError, ValueError):
    """A line that cannot be read; ``line`` is 1-based, ``message`` says what is wrong
    with it (``str()`` is ``line N: message``)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__("invalid_claim_lines", message, {"line": line})
        self.line = line

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _refuse_unstorable(value: Any, line: int, *, root: str = "") -> None:
    """The API's rule on a parsed line: no NUL or lone surrogate in a key or value."""
    found = unstorable_location(value, root=root)
    if found is not None:
        where, problem = found
        raise ClaimLinesError(line, f"{where} {problem}; it cannot be stored.")


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
    external_id = str(row.get("external_id") or "")
    if len(external_id) > MAX_EXTERNAL_ID_CHARS:
        raise ClaimLinesError(
            line, f"external_id is longer than {MAX_EXTERNAL_ID_CHARS} characters"
        )
    return ClaimSubmission(
        text=text,
        source=str(source),
        quote=quote or None,
        external_id=external_id,
        metadata=metadata,
        line=line,
    )


def _jsonl(text: str, default_source: str) -> list[ClaimSubmission]:
    claims = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = loads_bounded(line, finite=True)
        except JsonTooDeep as exc:
            raise ClaimLinesError(number, exc.message) from exc
        except json.JSONDecodeError as exc:
            raise ClaimLinesError(number, f"not JSON ({exc.msg})") from exc
        except NonFiniteNumber as exc:  # NaN, Infinity or 1e999 would fail as jsonb
            message = "a number is NaN, Infinity or too large (beyond about 1.8e308)"
            raise ClaimLinesError(number, message) from exc
        except ValueError as exc:  # the one other refusal: an integer's digit limit
            message = f"a number has more than {sys.get_int_max_str_digits():,} digits"
            raise ClaimLinesError(number, message) from exc
        if not isinstance(row, dict):
            raise ClaimLinesError(number, "each line must be a JSON object")
        _refuse_unstorable(row, number)
        unknown = set(row) - JSON_KEYS
        if unknown:
            raise ClaimLinesError(number, f"unknown keys {sorted(unknown)}")
        claims.append(_claim(row, number, default_source))
    return claims


def _csv_problem(exc: csv.Error) -> str:
    """What the ``csv`` module refused, in a user's words."""
    message = str(exc)
    if message.startswith("field larger than field limit"):
        return (
            f"a field is longer than {csv.field_size_limit():,} characters, "
            "the most one CSV field may hold"
        )
    if message.startswith("new-line character seen in unquoted field"):
        return (
            "a carriage return (CR) inside a field that is not in double quotes; "
            "quote the field, or end lines with LF or CRLF"
        )
    return f"not valid CSV ({message})"


def _csv_rows(reader: csv.DictReader[str]) -> Iterator[dict[str | Any, Any]]:
    """The reader's rows; a ``csv.Error`` becomes a ``ClaimLinesError`` on the physical
    line it was met on."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ClaimLinesError(reader.reader.line_num, _csv_problem(exc)) from exc
        yield row


def _csv(text: str, default_source: str) -> list[ClaimSubmission]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        fieldnames = list(reader.fieldnames or [])
    except csv.Error as exc:
        raise ClaimLinesError(reader.reader.line_num, _csv_problem(exc)) from exc
    _refuse_unstorable(fieldnames, 1, root="header")
    header = set(fieldnames)
    if "text" not in header:
        raise ClaimLinesError(1, "the CSV header needs a text column")
    unknown = header - CSV_COLUMNS
    if unknown:
        raise ClaimLinesError(1, f"unknown columns {sorted(unknown)}")
    claims = []
    for row in _csv_rows(reader):
        # DictReader puts the fields beyond the header, as a list, under the key None
        # (empty ones, as a trailing comma leaves, are nothing lost)
        extra = row.pop(None, None) or []
        if any(value.strip() for value in extra):
            raise ClaimLinesError(
                reader.line_num,
                f"{len(fieldnames) + len(extra)} fields; the header has {len(fieldnames)} "
                "(put a field holding a comma in double quotes)",
            )
        if not any((value or "").strip() for value in row.values()):
            continue
        _refuse_unstorable(row, reader.line_num)
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
