"""Transcripts as sources: parse JSON/JSONL turns and render them as one text (pure Python).

A transcript is a list of turns ``{"speaker", "text", "timestamp"?, "idx"?}`` given as a
JSON array, a JSON object with ``"turns"`` (and optionally ``"complete"``), or JSONL (one
turn per line). ``render`` writes the turns as one text, one turn per line, and records
for each turn the half-open ``[start, end)`` offsets of its words in that text, so a claim
can be bound to exact offsets of a hashed source version.

A turn is read for those keys (``time`` and ``index`` are read as ``timestamp`` and
``idx``), a transcript object for ``turns`` and ``complete``; other keys a chat log
carries (ids, metadata) are left alone. A timestamp is a string or a number; an object
giving one key twice is refused (``duplicate_field``).

Order and coverage: when every turn gives ``idx`` the turns are sorted by it (a duplicate
``idx`` is refused). A transcript is *incomplete* when the caller says so
(``"complete": false``), when the ``idx`` values have gaps (sorted, they do not run 0, 1,
2, ...), or when only some turns give one. A turn needs a non-empty ``speaker`` and
``text`` (strings); every refusal of a turn names it and where it is in the body, in the
message and in ``details.field``: ``transcript[2].text`` (the API's body key), or
``transcript.turns[2].text`` when the transcript is an object with ``turns``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from verifier.errors import ApplicationError
from verifier.untrusted_input import (
    DuplicateKey,
    JsonTooDeep,
    json_kind,
    loads_bounded,
    text_problem,
)

MAX_TURNS = 5000
MAX_TURN_CHARS = 20_000
MAX_SPEAKER_CHARS = 100
MAX_TRANSCRIPT_CHARS = 2_000_000


class TranscriptInputError(ApplicationError, ValueError):
    """Bad transcript input; ``code`` names the problem, ``details`` locates it."""


@dataclass(frozen=True)
class Turn:
    """One turn; ``start``/``end`` are offsets of ``text`` in the rendered transcript."""

    index: int
    speaker: str
    text: str
    timestamp: str = ""
    start: int = 0
    end: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "speaker": self.speaker,
            "text": self.text,
            "timestamp": self.timestamp,
            "start": self.start,
            "end": self.end,
        }


@dataclass(frozen=True)
class Transcript:
    text: str
    turns: tuple[Turn, ...]
    complete: bool

    def turns_by(self, speaker: str) -> list[Turn]:
        key = speaker_key(speaker)
        return [t for t in self.turns if speaker_key(t.speaker) == key]


def speaker_key(speaker: str) -> str:
    """Speakers compare case- and whitespace-insensitively ("SYSTEM" == " system ")."""
    return " ".join(speaker.split()).casefold()


def _decode(raw: str) -> Any:
    stripped = raw.strip()
    if not stripped:
        raise TranscriptInputError("empty_transcript", "The transcript is empty.")
    try:
        return loads_bounded(stripped, what="The transcript", unique_keys=True)
    except json.JSONDecodeError:
        pass
    except (JsonTooDeep, DuplicateKey) as exc:
        raise TranscriptInputError(exc.code, exc.message, exc.details) from exc
    rows = []
    for number, line in enumerate(stripped.splitlines(), start=1):
        if not line.strip():
            continue
        what = f"Line {number} of the transcript"
        try:
            rows.append(loads_bounded(line, what=what, unique_keys=True))
        except DuplicateKey as exc:
            raise TranscriptInputError(
                exc.code, exc.message, {**exc.details, "line": number}
            ) from exc
        except JsonTooDeep as exc:
            raise TranscriptInputError(exc.code, exc.message, {"line": number}) from exc
        except json.JSONDecodeError as exc:
            raise TranscriptInputError(
                "invalid_jsonl",
                f"Line {number} of the transcript is not JSON: {exc.msg}.",
                {"line": number},
            ) from exc
    return rows


def _refuse(base: str, position: int, name: str, message: str) -> TranscriptInputError:
    """An ``invalid_turn`` error naming the turn and its field (``transcript[2].text``)
    in the message and in ``details.field``; ``base`` is where the turns are
    (``transcript``, ``transcript.turns``)."""
    field = f"{base}[{position}]" + (f".{name}" if name else "")
    return TranscriptInputError(
        "invalid_turn",
        f"Turn {position} ({field}) {message}",
        {"turn": position, "field": field},
    )


def _turn(raw: Any, position: int, base: str) -> tuple[int | None, str, str, str]:
    if not isinstance(raw, dict):
        raise _refuse(
            base,
            position,
            "",
            f"must be an object with `speaker` and `text`, not {json_kind(raw)}.",
        )
    speaker, text = raw.get("speaker"), raw.get("text")
    for name, value in (("speaker", speaker), ("text", text)):
        if value is None:
            raise _refuse(base, position, name, f"needs a `{name}` string.")
        if not isinstance(value, str):
            raise _refuse(
                base, position, name, f"`{name}` must be a string, not {json_kind(value)}."
            )
        if not value.strip():
            # an empty turn says nothing a claim could be checked against
            raise _refuse(base, position, name, f"has an empty `{name}`.")
    assert isinstance(speaker, str) and isinstance(text, str)
    for name, value, limit in (
        ("speaker", speaker, MAX_SPEAKER_CHARS),
        ("text", text, MAX_TURN_CHARS),
    ):
        if len(value) > limit:
            field = f"{base}[{position}].{name}"
            raise TranscriptInputError(
                "turn_too_large",
                f"Turn {position} ({field}) is too large (speaker ≤ {MAX_SPEAKER_CHARS}, "
                f"text ≤ {MAX_TURN_CHARS} characters).",
                {"turn": position, "field": field, "limit": limit},
            )
    for name, value in (("speaker", speaker), ("text", text)):
        problem = text_problem(value)
        if problem:
            raise _refuse(base, position, name, f"`{name}` {problem}.")
    timestamp = raw.get("timestamp", raw.get("time", ""))
    if timestamp is not None and (
        isinstance(timestamp, bool) or not isinstance(timestamp, str | int | float)
    ):
        raise _refuse(
            base,
            position,
            "timestamp",
            f"`timestamp` must be a string or a number, not {json_kind(timestamp)}.",
        )
    timestamp = "" if timestamp is None else " ".join(str(timestamp).split())[:64]
    problem = text_problem(timestamp)
    if problem:
        raise _refuse(base, position, "timestamp", f"`timestamp` {problem}.")
    idx = raw.get("idx", raw.get("index"))
    if idx is not None and (not isinstance(idx, int) or isinstance(idx, bool) or idx < 0):
        raise _refuse(
            base,
            position,
            "idx",
            "`idx` must be a non-negative integer, not "
            + (str(idx) if isinstance(idx, int) and not isinstance(idx, bool) else json_kind(idx))
            + ".",
        )
    return idx, " ".join(speaker.split()), " ".join(text.split()), timestamp


def render(rows: Sequence[tuple[str, str, str]], *, complete: bool = True) -> Transcript:
    """Render ``(speaker, text, timestamp)`` rows: ``[timestamp] speaker: text`` per line."""
    parts: list[str] = []
    turns: list[Turn] = []
    pos = 0
    for index, (speaker, text, timestamp) in enumerate(rows):
        prefix = (f"[{timestamp}] " if timestamp else "") + f"{speaker}: "
        start = pos + len(prefix)
        turns.append(Turn(index, speaker, text, timestamp, start, start + len(text)))
        line = prefix + text + "\n"
        parts.append(line)
        pos += len(line)
    return Transcript("".join(parts), tuple(turns), complete)


def _ordered(
    parsed: list[tuple[int | None, str, str, str]], base: str
) -> tuple[list[tuple[int | None, str, str, str]], bool]:
    """The turns in ``idx`` order, and whether no turn is missing.

    When every turn gives ``idx`` the turns are sorted by it (turns sent out of order are
    still all there) and only a gap (0, 1, 3) makes the transcript incomplete; an ``idx``
    given twice is refused. Turns without ``idx`` stay in the order sent; when only some
    give one, the order cannot be told, and the transcript counts as incomplete."""
    indices = [idx for idx, *_ in parsed]
    given = [i for i in indices if i is not None]
    if not given:
        return parsed, True
    seen: dict[int, int] = {}
    for position, idx in enumerate(indices):
        if idx is None:
            continue
        if idx in seen:
            field = f"{base}[{position}].idx"
            raise TranscriptInputError(
                "duplicate_idx",
                f"Turns {seen[idx]} and {position} ({field}) both give `idx` {idx}; "
                "each turn's `idx` must be its own.",
                {"turn": position, "field": field, "idx": idx},
            )
        seen[idx] = position
    if len(given) < len(indices):
        return parsed, False
    ordered = sorted(parsed, key=lambda row: row[0] or 0)
    return ordered, sorted(given) == list(range(len(parsed)))


# The keys of a transcript given as an object (its turns keep their own extra keys).
TRANSCRIPT_OBJECT_KEYS: Final = frozenset({"turns", "complete"})


def parse_transcript(
    data: Any, *, complete: bool | None = None, root: str = "transcript"
) -> Transcript:
    """Parse JSON/JSONL turns (see the module docstring) into a rendered ``Transcript``.

    Raises ``TranscriptInputError`` for anything that is not a usable transcript; an
    error's ``field`` starts with ``root``, the transcript's name in the input."""
    if isinstance(data, str):
        if len(data) > MAX_TRANSCRIPT_CHARS:
            raise TranscriptInputError(
                "payload_too_large",
                f"The transcript has more than {MAX_TRANSCRIPT_CHARS} characters.",
                {"limit": MAX_TRANSCRIPT_CHARS},
            )
        data = _decode(data)
    declared = True
    base = root
    if isinstance(data, dict) and "turns" not in data and "speaker" in data:
        data = [data]  # one turn: JSONL of a single line reads as one JSON object
    if isinstance(data, dict):
        if "turns" not in data:
            raise TranscriptInputError(
                "invalid_transcript",
                "A transcript object needs `turns` (or is one turn, with `speaker` and `text`).",
            )
        unknown = sorted(set(data) - TRANSCRIPT_OBJECT_KEYS)
        if unknown:
            # "compelte": false read as complete would hide that turns are missing
            raise TranscriptInputError(
                "unknown_field",
                f"Unknown field {unknown[0]!r} in the transcript object; the known ones "
                f"are: {', '.join(sorted(TRANSCRIPT_OBJECT_KEYS))}.",
                {"field": f"{root}.{unknown[0]}"},
            )
        if "complete" in data:
            if not isinstance(data["complete"], bool):
                raise TranscriptInputError(
                    "invalid_transcript", "`complete` must be true or false."
                )
            declared = data["complete"]
        data = data["turns"]
        base = f"{root}.turns"
    if not isinstance(data, list):
        raise TranscriptInputError(
            "invalid_transcript", "A transcript is a JSON array of turns, an object, or JSONL."
        )
    if not data:
        raise TranscriptInputError("empty_transcript", "The transcript has no turns.")
    if len(data) > MAX_TURNS:
        raise TranscriptInputError(
            "payload_too_large",
            f"The transcript has {len(data)} turns; at most {MAX_TURNS} are allowed.",
            {"limit": MAX_TURNS},
        )
    parsed = [_turn(raw, position, base) for position, raw in enumerate(data)]
    parsed, gapless = _ordered(parsed, base)
    if complete is not None:
        declared = declared and complete
    return render([(s, t, ts) for _, s, t, ts in parsed], complete=declared and gapless)
