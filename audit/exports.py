"""Streamed claim exports: each claim as ``GET /connect/v1/claims`` gives it (its
verified-claim envelope with ``reason`` and ``reason_text``), as JSONL or CSV.

Codes stay fields (``state``, ``reason``, ``judge_verdict``) with their label beside them
(``state_label``, ``reason_label``, ``judge_verdict_label``, from :mod:`verifier.vocabulary`);
:func:`header_notes` says what each code means, for the page that offers the exports and
the ``Link`` header that points at the glossary. ``judge_confidence`` is the confidence of
the judge's answer: empty for a verdict that gave none (an abstention is never exported
as 1.0). ``source_ref`` is the cited source's ref, also for a claim with no bound span
(the JSONL envelope names it in ``evidence`` only when a span is bound).

The CSV is UTF-8 without a byte-order mark, for programs (``csv``, pandas, ``cut``): the
first bytes are the header ``claim_id``. Excel reads a CSV without a BOM in the
computer's legacy code page, so accented and non-Latin text comes out garbled; the
console's "CSV for Excel" link (``?excel=1``) starts the same rows with a UTF-8 BOM
(:data:`EXCEL_BOM`) and nothing else changes (comma separated, CRLF line ends).

Rows are produced lazily from ``QuerySet.iterator(chunk_size=...)`` and written
line by line into a ``StreamingHttpResponse``; nothing holds the whole export.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import QuerySet

from verifier import vocabulary
from verifier.models import Claim

EXPORT_CHUNK_SIZE: Final = 500
# What Excel needs to read a CSV as UTF-8 (``?excel=1`` only; the default stays clean).
EXCEL_BOM: Final = "\ufeff"

CSV_COLUMNS: Final = (
    "claim_id",
    "text",
    "state",
    "state_label",
    "reason",
    "reason_label",
    "exclusion_reason",
    "trust_score",
    "citation",
    "quote",
    "start",
    "end",
    "source_ref",
    "source_hash",
    "match",
    "judge_model",
    "judge_prompt_version",
    "judge_verdict",
    "judge_verdict_label",
    "judge_confidence",
    "judged_at",
    "trace_ref",
)
# Spreadsheet formula triggers; such cells get a leading apostrophe in CSV only
# (the JSONL export is byte-faithful). A trigger after leading whitespace counts too
# (a spreadsheet that trims cells on import reads " =1+1" as a formula), and so do the
# full-width forms some spreadsheets read as their ASCII ones.
_FORMULA_PREFIXES: Final = (
    "=",
    "+",
    "-",
    "@",
    "\t",
    "\r",
    "\n",
    "\uff1d",  # FULLWIDTH EQUALS SIGN
    "\uff0b",  # FULLWIDTH PLUS SIGN
    "\uff0d",  # FULLWIDTH HYPHEN-MINUS
    "\uff20",  # FULLWIDTH COMMERCIAL AT
)


# The envelope selector is imported where it is used, so the console's URLconf
# loads even while verifier.selectors.envelopes is being written.


def envelope_of(claim: Claim) -> dict[str, Any]:
    """The verified-claim envelope exactly as the API serves it."""
    from verifier.selectors.envelopes import claim_envelope

    return claim_envelope(claim=claim)


@dataclass(frozen=True)
class ExportRow:
    """One exported claim: its envelope, and the ref of the source it cites."""

    envelope: dict[str, Any]
    source_ref: str


def export_rows(claims: QuerySet[Claim]) -> Iterator[ExportRow]:
    from verifier.selectors.envelopes import claim_list_item, claims_for_envelopes

    for claim in claims_for_envelopes(claims).iterator(chunk_size=EXPORT_CHUNK_SIZE):
        yield ExportRow(claim_list_item(claim=claim), claim.source.ref)


def header_notes() -> list[tuple[str, list[vocabulary.Term], str]]:
    """(column, the terms of its codes, a note) for the exports' coded columns and their
    time column (its zone)."""
    return [
        ("state", list(vocabulary.STATES.values()), ""),
        ("reason", list(vocabulary.REASONS.values()), ""),
        ("judge_verdict", list(vocabulary.VERDICTS.values()), ""),
        ("match", list(vocabulary.MATCHES.values()), ""),
        (
            "judge_confidence",
            [],
            "How sure the judge is of its answer, 0 to 1; empty when it gave no answer.",
        ),
        (
            "judged_at",
            [],
            "When the judge answered, in UTC: ISO 8601 ending in Z (UTC), such as "
            "2026-06-10T12:04:11.000Z.",
        ),
    ]


def jsonl_lines(rows: Iterable[ExportRow]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row.envelope, ensure_ascii=False, sort_keys=True, default=str) + "\n"


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = str(value)
    risky = text.startswith(_FORMULA_PREFIXES) or text.lstrip().startswith(_FORMULA_PREFIXES)
    return "'" + text if risky else text


def csv_row(row: ExportRow) -> list[str]:
    envelope = row.envelope
    claim = envelope.get("claim") or {}
    evidence = (envelope.get("evidence") or [{}])[0]
    offsets = evidence.get("offsets") or [None, None]
    judge = envelope.get("judge") or {}
    values = (
        claim.get("id"),
        claim.get("text"),
        envelope.get("state"),
        vocabulary.label("state", envelope.get("state")),
        envelope.get("reason"),
        vocabulary.label("reason", envelope["reason"]) if envelope.get("reason") else None,
        envelope.get("exclusion_reason"),
        envelope.get("trust_score"),
        envelope.get("citation"),
        evidence.get("quote"),
        offsets[0],
        offsets[1],
        evidence.get("source_ref") or row.source_ref,
        evidence.get("source_hash"),
        evidence.get("match"),
        judge.get("model"),
        judge.get("prompt_version"),
        judge.get("verdict"),
        vocabulary.label("verdict", judge["verdict"]) if judge.get("verdict") else None,
        judge.get("confidence"),
        judge.get("at"),
        envelope.get("trace_ref"),
    )
    return [_cell(v) for v in values]


class _Echo:
    """A file-like object whose ``write`` returns the line for streaming."""

    def write(self, value: str) -> str:
        return value


def csv_lines(rows: Iterable[ExportRow], *, excel: bool = False) -> Iterator[str]:
    """The CSV's lines; ``excel`` starts it with a UTF-8 byte-order mark."""
    writer = csv.writer(_Echo())
    if excel:
        yield EXCEL_BOM
    yield writer.writerow(CSV_COLUMNS)
    for row in rows:
        yield writer.writerow(csv_row(row))
