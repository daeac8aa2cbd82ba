"""The rules every door applies to input from outside, written once.

1. **Storable text.** PostgreSQL's ``text`` takes neither NUL (U+0000) nor a lone
   surrogate (U+D800–U+DFFF, which has no UTF-8 encoding; a JSON ``"\\ud800"`` escape
   makes one). Such a character anywhere in a request (path, query string, form field,
   JSON key or value) is refused where the request is read (``verifier.input_guard``,
   ``verifier.api.parsers``), before a view, a query or a renderer meets it.
2. **Bounded JSON.** No JSON the app parses nests deeper than ``MAX_JSON_DEPTH``: the
   API's bodies, JSON carried inside them as text (RAG chunks, memory transcripts), the
   console's forms and uploads, and answers from the outside services it calls. Deeper
   nesting would exhaust the interpreter's recursion limit while parsing, validating or
   storing it (``'[' * 100000`` is a ``RecursionError``).
3. **Identifiers show what they are.** A source ref or a claim's external id holds no
   control character (C0, DEL, C1: tab and newline included) and no invisible formatting
   character (Unicode category Cf: the bidirectional overrides and isolates, zero-width
   spaces and joiners, the byte-order mark). A bidirectional override shows
   ``source:report\u202efdp.exe`` as ``source:reportexe.pdf`` ("Trojan Source",
   CVE-2021-42574), and an invisible character makes two refs that look the same
   different refs; such a ref is refused where it would be stored
   (``identifier_problem``), whichever door it came through. A title, which may be in
   any script, keeps the invisible characters writing needs (joiners, direction marks)
   and refuses only the bidirectional overrides, embeddings and isolates that reorder
   what is shown around them (``display_text_problem``). A source ref is one ref however
   its letters were encoded: it is stored and looked up in Unicode's composed form
   (NFC, ``canonical_ref``), so ``café`` typed as U+00E9 and as ``e`` + U+0301, which
   a person cannot tell apart, name the same source at every door.
4. **Numbers are ASCII digits.** A number read from a query string or a form field
   (a page, a version, an id) is a run of ASCII digits of bounded length
   (``decimal_int``): ``str.isdigit`` also accepts "²" and "٣", which ``int`` refuses
   or reads as another number.

5. **A text has something to read.** A source text (a document, a pasted or uploaded
   file, an inline source) holds at least one visible character: one that is only
   whitespace and invisible characters (a zero-width space, a byte-order mark, a
   Hangul filler) would be a source no quote can ever bind to. Every door that stores
   one refuses it with ``empty_text`` (``blank_text_problem``, applied by
   ``services.sources.source_upsert``).

Free of Django, so the pure cores use it too.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Final

from verifier.errors import ApplicationError

MAX_JSON_DEPTH: Final = 64

_UNSTORABLE: Final = re.compile("[\x00\ud800-\udfff]")


class JsonTooDeep(ApplicationError, ValueError):
    """JSON nested deeper than ``MAX_JSON_DEPTH`` (or too deep to parse at all)."""

    def __init__(self, what: str = "the JSON") -> None:
        super().__init__(
            "json_too_deep",
            f"{what} is nested deeper than {MAX_JSON_DEPTH} levels.",
            {"limit": MAX_JSON_DEPTH},
        )


def decimal_int(value: Any, *, max_digits: int = 18) -> int | None:
    """``value`` as a non-negative integer when it is 1 to ``max_digits`` ASCII digits
    (no sign, no spaces); None otherwise."""
    text = value if isinstance(value, str) else ""
    if not text or len(text) > max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be stored, or None: the first NUL or lone surrogate."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return f"contains a NUL character at position {found.start()}"
    return f"is not valid Unicode (a lone surrogate) at position {found.start()}"


# Characters that show nothing although Unicode does not class them as spaces or
# formatting: the combining grapheme joiner, the Hangul fillers, the blank Braille
# pattern and the variation selectors.
_BLANK_MARKS: Final = frozenset("\u034f\u115f\u1160\u3164\uffa0\u2800") | frozenset(
    chr(code) for code in range(0xFE00, 0xFE10)
)


def _shows_nothing(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zs") or ch in _BLANK_MARKS


def blank_text_problem(text: str) -> str | None:
    """Why ``text`` has nothing to read (rule 5), or None when it has a visible
    character: ``is empty``, ``is only whitespace``, or ``has no visible character,
    only whitespace and invisible characters such as U+200B ZERO WIDTH SPACE``."""
    if not text:
        return "is empty"
    if any(not _shows_nothing(ch) for ch in text):
        return None
    invisible = next((ch for ch in text if not ch.isspace()), None)
    if invisible is None:
        return "is only whitespace"
    name = unicodedata.name(invisible, "an invisible character")
    return (
        "has no visible character, only whitespace and invisible characters such as "
        f"U+{ord(invisible):04X} {name}"
    )


_CONTROL_NAMES: Final = {"\t": "a tab", "\n": "a line break", "\r": "a carriage return"}


def identifier_problem(text: str) -> str | None:
    """Why ``text`` cannot be an identifier (rule 3), or None: the first control or
    invisible formatting character, named by its code point, e.g. ``contains the
    invisible character U+202E RIGHT-TO-LEFT OVERRIDE at position 13``."""
    for position, ch in enumerate(text):
        category = unicodedata.category(ch)
        if category == "Cc":
            name = _CONTROL_NAMES.get(ch, "a control character")
            return f"contains U+{ord(ch):04X} ({name}) at position {position}"
        if category == "Cf":
            name = unicodedata.name(ch, "a formatting character")
            return f"contains the invisible character U+{ord(ch):04X} {name} at position {position}"
    return None


_REORDERING: Final = re.compile("[\u202a-\u202e\u2066-\u2069]")


def display_text_problem(text: str) -> str | None:
    """Why ``text`` cannot be shown as a title (rule 3), or None: the first
    bidirectional override, embedding or isolate, named by its code point."""
    found = _REORDERING.search(text)
    if found is None:
        return None
    ch = found.group()
    return (
        f"contains the invisible character U+{ord(ch):04X} {unicodedata.name(ch)} at "
        f"position {found.start()}, which reorders how the text around it is shown"
    )


def identifier_refusal(what: str, text: str) -> str | None:
    """The sentence that refuses ``text`` as the identifier ``what`` ("ref", "name"), or
    None when ``identifier_problem`` finds nothing: one wording for every door."""
    problem = identifier_problem(text)
    if problem is None:
        return None
    return f"The {what} {problem}: it is shown to people and must read as what it is."


def canonical_ref(ref: str) -> str:
    """``ref`` in the form it is stored and looked up in (rule 3): Unicode NFC, so the
    composed and decomposed spellings of one ref (``é`` as U+00E9 or as ``e`` + U+0301)
    are one ref. Nothing else changes: no case folding, no trimming, and a ref already
    in NFC (every ASCII one) is returned as it is."""
    return ref if ref.isascii() else unicodedata.normalize("NFC", ref)


def printable(text: str) -> str:
    """``text`` with NUL and lone surrogates escaped (``\\x00``, ``\\ud800``), safe to
    put in an error message that is rendered as JSON or HTML."""
    if _UNSTORABLE.search(text) is None:
        return text
    return _UNSTORABLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def unstorable_location(value: Any, *, root: str = "") -> tuple[str, str] | None:
    """The first string in a parsed JSON value (keys included) that cannot be stored:
    ``(where, problem)``, e.g. ``("metadata.\\x00", "contains a NUL character ...")``;
    None when every string is storable. Walks without recursion."""
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem is not None:
                return where or "the body", problem
        elif isinstance(item, dict):
            for key, child in item.items():
                key_text = str(key)
                path = f"{where}.{printable(key_text)}" if where else printable(key_text)
                problem = text_problem(key_text)
                if problem is not None:
                    return path, f"has a key that {problem}"
                stack.append((child, path))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{index}]") for index, child in enumerate(item))
    return None


def json_kind(value: Any) -> str:
    """What a parsed JSON value is, in the words of a JSON reader."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return "null" if value is None else type(value).__name__


def json_depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


class NonFiniteNumber(ValueError):
    """A JSON number no database column holds: ``NaN``, ``Infinity``, or one beyond a
    double (``1e999``, which would parse as infinity)."""


def _refuse_constant(name: str) -> None:
    raise NonFiniteNumber(f"{name} is not valid JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise NonFiniteNumber(f"{literal[:40]} is too large a number")
    return value


class DuplicateKey(ApplicationError, ValueError):
    """A JSON object that gives one key twice: which value counts is a guess (Python's
    reader keeps the last, others the first), so it is refused, naming the key."""

    def __init__(self, key: str, what: str = "the JSON") -> None:
        super().__init__(
            "duplicate_field",
            f"{what[:1].upper()}{what[1:]} gives the key {printable(key)!r} twice; give it once.",
            {"field": printable(key)},
        )


def _unique_keys(what: str) -> Any:
    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                raise DuplicateKey(key, what)
            out[key] = value
        return out

    return pairs_hook


def loads_bounded(
    text: str | bytes, *, what: str = "the JSON", finite: bool = False, unique_keys: bool = False
) -> Any:
    """``json.loads`` that refuses nesting deeper than ``MAX_JSON_DEPTH``
    (``JsonTooDeep``), with ``finite`` a number jsonb refuses (``NonFiniteNumber``), and
    with ``unique_keys`` an object giving one key twice (``DuplicateKey``). Malformed
    JSON still raises ``json.JSONDecodeError``."""
    hooks: dict[str, Any] = (
        {"parse_constant": _refuse_constant, "parse_float": _finite_float} if finite else {}
    )
    if unique_keys:
        hooks["object_pairs_hook"] = _unique_keys(what)
    try:
        data = json.loads(text, **hooks)
    except RecursionError as exc:
        raise JsonTooDeep(what) from exc
    if json_depth(data) > MAX_JSON_DEPTH:
        raise JsonTooDeep(what)
    return data
