"""Parse and validate the audit input: the answer and its id-keyed chunks (pure Python).

``chunks`` is JSONL — one ``{"id": ..., "text": ...}`` object per line — or a JSON array
of the same objects (as a string or already decoded). Every problem raises
``RagInputError`` with a stable ``code``, a message a person can act on (the JSONL line
number, the duplicated id) and machine-readable ``details``.

A chunk is read for its ``id`` and ``text``, both JSON strings: an ``id`` sent as the
number 2 is refused (``invalid_chunk`` naming ``chunks[i].id``), not read as "2". Other
keys a retriever attaches (a score, metadata) are left alone, but an object giving one
key twice is refused (``duplicate_field``). A chunk id is an identifier, shown to
people as the ``supported_by`` of each claim: it is held to the identifier rule
(``verifier.untrusted_input.identifier_refusal``: no control or invisible formatting
character), refused as ``invalid_chunk`` naming the chunk and its ``id``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from verifier.errors import ApplicationError
from verifier.untrusted_input import (
    DuplicateKey,
    JsonTooDeep,
    identifier_refusal,
    json_kind,
    loads_bounded,
    text_problem,
)

MAX_ANSWER_CHARS = 20_000
MAX_CHUNKS = 1000
MAX_CHUNK_CHARS = 50_000
MAX_CHUNKS_TOTAL_CHARS = 1_000_000
MAX_CHUNK_ID_CHARS = 100
# What one audit answered within a web request may weigh: the answer's characters times
# its chunks. The audit compares each of the answer's claims with every chunk
# (``evidence.best_window``), so its time grows with both: on two cores, 20,000
# characters over 60 chunks (1,200,000) take about 30 s, over 250 chunks 82 s and over
# 1,000 chunks 227 s, past the web server's 120 s worker timeout (``bench/rag_size.py``).
MAX_ANSWER_TIMES_CHUNKS = 2_000_000
# ... and the answer's characters times the chunks' characters: each claim reads every
# chunk's sentences (20,000 characters over 100 chunks of 10,000, 2 × 10^10, took 91 s on
# two busy cores; the bound halves it).
MAX_ANSWER_TIMES_CHUNK_CHARS = 10_000_000_000


class RagInputError(ApplicationError, ValueError):
    """Bad audit input; ``code`` names the problem, ``details`` locates it."""


@dataclass(frozen=True)
class Chunk:
    id: str
    text: str


def validate_answer(answer: Any) -> str:
    if not isinstance(answer, str):
        raise RagInputError("invalid_answer", "`answer` must be a string.", {"field": "answer"})
    if not answer.strip():
        raise RagInputError(
            "empty_answer", "`answer` is empty: there is nothing to audit.", {"field": "answer"}
        )
    if len(answer) > MAX_ANSWER_CHARS:
        raise RagInputError(
            "payload_too_large",
            f"`answer` has {len(answer)} characters; at most {MAX_ANSWER_CHARS} are allowed.",
            {"field": "answer", "limit": MAX_ANSWER_CHARS, "size": len(answer)},
        )
    problem = text_problem(answer)
    if problem:
        raise RagInputError("invalid_text", f"`answer` {problem}.", {"field": "answer"})
    return answer


def _chunk_from(obj: Any, where: str, details: dict[str, Any]) -> Chunk:
    if not isinstance(obj, dict):
        raise RagInputError(
            "invalid_chunk", f"{where} is not a JSON object with `id` and `text`.", details
        )
    raw_id, text = obj.get("id"), obj.get("text")
    id_details = {**details, "field": f"{where}.id"}
    if raw_id is not None and not isinstance(raw_id, str):
        # 2 is not "2": an id is read as sent, never coerced (like every API field)
        raise RagInputError(
            "invalid_chunk", f"{where}: `id` must be a string, not {json_kind(raw_id)}.", id_details
        )
    if raw_id is None or not raw_id.strip():
        raise RagInputError("invalid_chunk", f"{where} needs a non-empty string `id`.", id_details)
    chunk_id = raw_id.strip()
    if len(chunk_id) > MAX_CHUNK_ID_CHARS:
        raise RagInputError(
            "invalid_chunk", f"{where}: `id` is longer than {MAX_CHUNK_ID_CHARS} chars.", id_details
        )
    problem = text_problem(chunk_id)
    refused = None if problem else identifier_refusal("chunk id", chunk_id)
    if refused is not None:
        raise RagInputError("invalid_chunk", f"{where}: {refused}", id_details)
    if not isinstance(text, str) or not text.strip():
        raise RagInputError(
            "invalid_chunk", f"{where} (id {chunk_id!r}) needs a non-empty string `text`.", details
        )
    if len(text) > MAX_CHUNK_CHARS:
        raise RagInputError(
            "payload_too_large",
            f"{where} (id {chunk_id!r}) has {len(text)} characters; "
            f"at most {MAX_CHUNK_CHARS} are allowed per chunk.",
            {**details, "limit": MAX_CHUNK_CHARS, "size": len(text)},
        )
    problem = text_problem(text) or problem
    if problem:
        raise RagInputError("invalid_text", f"{where} (id {chunk_id!r}) {problem}.", details)
    return Chunk(chunk_id, text)


def _from_jsonl(raw: str) -> list[tuple[Chunk, str, dict[str, Any]]]:
    out = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = loads_bounded(line, what=f"chunks line {number}", unique_keys=True)
        except DuplicateKey as exc:
            raise RagInputError(exc.code, exc.message, {**exc.details, "line": number}) from exc
        except JsonTooDeep as exc:
            raise RagInputError(exc.code, exc.message, {"line": number}) from exc
        except json.JSONDecodeError as exc:
            raise RagInputError(
                "malformed_jsonl",
                f"chunks line {number} is not valid JSON: {exc.msg} (column {exc.colno}).",
                {"line": number, "column": exc.colno},
            ) from exc
        details = {"line": number}
        out.append((_chunk_from(obj, f"chunks line {number}", details), f"line {number}", details))
    return out


def _from_array(items: Sequence[Any]) -> list[tuple[Chunk, str, dict[str, Any]]]:
    out = []
    for index, obj in enumerate(items):
        details = {"index": index}
        out.append((_chunk_from(obj, f"chunks[{index}]", details), f"item {index}", details))
    return out


def check_audit_size(answer: str, chunks: Sequence[Chunk]) -> None:
    """Refuse an audit too large to answer within a request: the answer's characters
    times its chunks over ``MAX_ANSWER_TIMES_CHUNKS``, or times the chunks' characters
    over ``MAX_ANSWER_TIMES_CHUNK_CHARS`` — a long answer over many or long chunks, each
    within its own limit. The ``rag_audit`` command, which no request times out, does
    not ask."""
    length = max(len(answer), 1)
    chunk_chars = sum(len(chunk.text) for chunk in chunks)
    if length * len(chunks) > MAX_ANSWER_TIMES_CHUNKS:
        limit, size = MAX_ANSWER_TIMES_CHUNKS, length * len(chunks)
        most = f"at most {MAX_ANSWER_TIMES_CHUNKS // length:,} chunks"
        what = "the answer's characters times its chunks"
    elif length * chunk_chars > MAX_ANSWER_TIMES_CHUNK_CHARS:
        limit, size = MAX_ANSWER_TIMES_CHUNK_CHARS, length * chunk_chars
        most = f"at most {MAX_ANSWER_TIMES_CHUNK_CHARS // length:,} characters of chunks"
        what = "the answer's characters times the chunks' characters"
    else:
        return
    raise RagInputError(
        "audit_too_large",
        f"An answer of {len(answer):,} characters over {len(chunks):,} chunks of "
        f"{chunk_chars:,} characters is too large to audit in one request: {what} may be "
        f"at most {limit:,} (for this answer, {most}). Send only the chunks the answer "
        "cites or draws on, or audit the answer in parts.",
        {"field": "chunks", "limit": limit, "size": size},
    )


def parse_chunks(raw: Any) -> list[Chunk]:
    """Chunks from JSONL text, a JSON array string, or a list of ``{"id", "text"}`` dicts."""
    if isinstance(raw, str):
        if len(raw) > MAX_CHUNKS_TOTAL_CHARS:
            raise RagInputError(
                "payload_too_large",
                f"`chunks` has {len(raw)} characters; at most {MAX_CHUNKS_TOTAL_CHARS} allowed.",
                {"field": "chunks", "limit": MAX_CHUNKS_TOTAL_CHARS, "size": len(raw)},
            )
        if raw.lstrip().startswith("["):
            try:
                decoded = loads_bounded(raw, what="`chunks`", unique_keys=True)
            except (JsonTooDeep, DuplicateKey) as exc:
                raise RagInputError(exc.code, exc.message, exc.details) from exc
            except json.JSONDecodeError as exc:
                raise RagInputError(
                    "malformed_chunks",
                    f"`chunks` looks like a JSON array but is not valid JSON: {exc.msg} "
                    f"(line {exc.lineno}, column {exc.colno}).",
                    {"line": exc.lineno, "column": exc.colno},
                ) from exc
            parsed = _from_array(decoded)
        else:
            parsed = _from_jsonl(raw)
    elif isinstance(raw, list | tuple):
        parsed = _from_array(raw)
    else:
        raise RagInputError(
            "invalid_chunks", "`chunks` must be JSONL text or a JSON array of {id, text}."
        )
    if not parsed:
        raise RagInputError("no_chunks", "`chunks` is empty: an answer needs chunks to audit.")
    if len(parsed) > MAX_CHUNKS:
        raise RagInputError(
            "payload_too_large",
            f"{len(parsed)} chunks given; at most {MAX_CHUNKS} are allowed.",
            {"field": "chunks", "limit": MAX_CHUNKS, "size": len(parsed)},
        )
    total = sum(len(chunk.text) for chunk, _, _ in parsed)
    if total > MAX_CHUNKS_TOTAL_CHARS:
        raise RagInputError(
            "payload_too_large",
            f"the chunks hold {total} characters; at most {MAX_CHUNKS_TOTAL_CHARS} are allowed.",
            {"field": "chunks", "limit": MAX_CHUNKS_TOTAL_CHARS, "size": total},
        )
    first_seen: dict[str, str] = {}
    for chunk, where, details in parsed:
        if chunk.id in first_seen:
            raise RagInputError(
                "duplicate_chunk_id",
                f"chunk id {chunk.id!r} appears twice ({first_seen[chunk.id]} and {where}).",
                {**details, "id": chunk.id},
            )
        first_seen[chunk.id] = where
    return [chunk for chunk, _, _ in parsed]
