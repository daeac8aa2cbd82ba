"""Sentence boundaries as half-open code-point spans of the original text: the two
splitters, rule based and deterministic, with one abbreviation list
(``verifier.text.abbreviations``).

``sentence_spans(text)`` — the offsets evidence is bound to and judged in (binding,
judging context, RAG, memory); ``sentence_around`` widens a bound span to its whole
sentences for the judge. A sentence ends after a run of terminators
(``. ! ? … ‽``) plus any closing quotes/brackets when whitespace or the end of the
text follows, after CJK/Arabic full stops and question marks, at a blank line, and
at a newline that starts a list item. A ``.`` does not end a sentence after a known
abbreviation ("e.g.", "Dr.", "Fig."), a single-letter initial ("J. Smith"), or when
the next word starts lower-case; after a closing abbreviation ("etc.", "Ltd.") or a
dotted acronym ("U.S.") only when the next word starts upper-case; decimals ("3.14")
never match because no space follows the dot. Spans are trimmed of surrounding
whitespace and never empty.

``block_sentence_spans(text, start, end)`` — the offline extractor's, run inside one
paragraph or list item (the extractor finds those). Its spans follow one another
untrimmed. A sentence ends after ``. ! ? …`` plus closing
quotes/brackets before whitespace or the end; a single ``.`` does not end one after
an abbreviation of the extractor's list (closing ones included) or any single letter,
before a lower-case word, or between two numbers ("in 2. 3 more"). It knows no hard breaks and
no CJK/Arabic stops. bench/sentence_splitters.py counts where the two disagree.
"""

from __future__ import annotations

import re

from verifier.text.abbreviations import (
    EXTRACTOR_ABBREVIATIONS,
    SENTENCE_SPAN_ABBREVIATIONS,
    SENTENCE_SPAN_CLOSING_ABBREVIATIONS,
)

_TERMINATOR = re.compile(
    r"(?P<stops>[.!?\u2026\u203d]+)[\"'\u201d\u2019\u00bb)\]]*(?=\s|$)"
    r"|[\u3002\uff01\uff1f\u061f\u06d4]+[\"'\u201d\u2019\u300d\u300f\uff09)\]]*"
)
_HARD_BREAK = re.compile(r"\n[^\S\n]*\n\s*|\n(?=[^\S\n]*(?:[-*\u2022]|\d{1,3}[.)])\s)")
_LAST_WORD = re.compile(r"(\S+)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")
_DOTTED_ACRONYM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")
_WORD_LOOKBACK = 40


def _ends_sentence(text: str, match: re.Match[str]) -> bool:
    follow = _NEXT_CHAR.match(text, match.end())
    next_char = follow.group(1) if follow else ""
    if next_char.islower():
        return False
    if match.group("stops") != ".":
        return True
    word_match = _LAST_WORD.search(text, max(0, match.start() - _WORD_LOOKBACK), match.start())
    if word_match is None:
        return True
    word = word_match.group(1).lstrip("([{\"'\u201c\u2018")
    lowered = word.lower()
    if lowered in SENTENCE_SPAN_ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha() and word.isupper():
        return False  # an initial, "J. Smith"
    if lowered in SENTENCE_SPAN_CLOSING_ABBREVIATIONS or _DOTTED_ACRONYM.fullmatch(word):
        return next_char.isupper()
    return True


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Sentence ``(start, end)`` spans of ``text`` in reading order."""
    breaks: list[int] = [m.start() for m in _HARD_BREAK.finditer(text)]
    breaks.extend(m.end() for m in _TERMINATOR.finditer(text) if _ends_sentence(text, m))
    breaks.sort()
    breaks.append(len(text))
    spans: list[tuple[int, int]] = []
    start = 0
    for end in breaks:
        if end <= start:
            continue
        segment = text[start:end]
        stripped = segment.strip()
        if stripped:
            lead = len(segment) - len(segment.lstrip())
            spans.append((start + lead, start + lead + len(stripped)))
        start = end
    return spans


def sentence_around(text: str, start: int, end: int, *, reach: int = 600) -> tuple[int, int]:
    """``(start, end)`` widened to the whole sentences it falls in: a span that starts or
    ends inside a sentence ("the council approved the budget" in "It is false that the
    council approved the budget.") is read with the rest of its sentence. A side that
    already sits on a sentence boundary stays; so does one whose sentence runs past
    ``reach`` characters (only a fragment of it would be in reach)."""
    lo, hi = max(0, start - reach), min(len(text), end + reach)
    new_start, new_end = start, end
    for s, e in sentence_spans(text[lo:hi]):
        s, e = s + lo, e + lo
        if s < start < e and (s > lo or lo == 0):
            new_start = s
        if s < end < e and (e < hi or hi == len(text)):
            new_end = e
    return new_start, max(new_end, end)


def sentence_before(text: str, start: int, *, lookback: int = 600) -> str:
    """The whole sentence that ends before offset ``start`` (looking back at most
    ``lookback`` characters), or "" when none fits: only a fragment of a very long
    sentence would be in reach."""
    head = text[max(0, start - lookback) : start]
    spans = sentence_spans(head)
    if not spans or (start - lookback > 0 and len(spans) == 1):
        return ""
    first, last = spans[-1]
    return head[first:last]


# --- the extractor's splitter ------------------------------------------------------
_BLOCK_SENTENCE_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)")
ABBREVIATION_WINDOW = 64
_ABBREVIATION_TAIL = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def ends_with_abbreviation(text: str, end: int) -> bool:
    """Does the period at ``text[end-1]`` close an abbreviation or an initial?

    Only the run of letters and periods before it matters, so only a bounded tail is
    searched (the whole prefix made sentence splitting quadratic in the document); a
    run longer than the window is no abbreviation either way."""
    match = _ABBREVIATION_TAIL.search(text, max(0, end - ABBREVIATION_WINDOW), end)
    if not match:
        return False
    word = match.group(1).lower()
    return word in EXTRACTOR_ABBREVIATIONS or len(word) == 1


def block_sentence_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Consecutive, untrimmed ``(start, end)`` spans of the sentences of
    ``text[start:end]`` in reading order (a blank tail is left out)."""
    out = []
    cursor = start
    for match in _BLOCK_SENTENCE_END.finditer(text, start, end):
        stop = match.end()
        if match.group(0).startswith(".") and len(match.group(0).rstrip("\"'”’)]")) == 1:
            if ends_with_abbreviation(text, match.start() + 1):
                continue
            nxt = text[stop:end].lstrip()
            if nxt[:1].islower() or (
                nxt[:1].isdigit() and text[match.start() - 1 : match.start()].isdigit()
            ):
                continue
        out.append((cursor, stop))
        cursor = stop
    if cursor < end and text[cursor:end].strip():
        out.append((cursor, end))
    return out
