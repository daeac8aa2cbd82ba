"""Sentence boundaries as half-open code-point spans of the original text.

Rule based and deterministic. A sentence ends after a run of terminators
(``. ! ? … ‽``) plus any closing quotes/brackets when whitespace or the end of the
text follows, after CJK/Arabic full stops and question marks, at a blank line, and
at a newline that starts a list item. A ``.`` does not end a sentence after a known
abbreviation ("e.g.", "Dr.", "Fig."), a single-letter initial ("J. Smith"), or when
the next word starts lower-case; decimals ("3.14") never match because no space
follows the dot. Spans are trimmed of surrounding whitespace and never empty.
"""

from __future__ import annotations

import re

_TERMINATOR = re.compile(
    r"(?P<stops>[.!?\u2026\u203d]+)[\"'\u201d\u2019\u00bb)\]]*(?=\s|$)"
    r"|[\u3002\uff01\uff1f\u061f\u06d4]+[\"'\u201d\u2019\u300d\u300f\uff09)\]]*"
)
_HARD_BREAK = re.compile(r"\n[^\S\n]*\n\s*|\n(?=[^\S\n]*(?:[-*\u2022]|\d{1,3}[.)])\s)")
_LAST_WORD = re.compile(r"(\S+)$")
_NEXT_CHAR = re.compile(r"\s*(\S)")
_DOTTED_ACRONYM = re.compile(r"(?:[^\W\d_]\.)+[^\W\d_]")
_WORD_LOOKBACK = 40

# Never end a sentence (they are almost always followed by more of it).
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "eg",
        "ie",
        "cf",
        "viz",
        "vs",
        "mr",
        "mrs",
        "ms",
        "mx",
        "dr",
        "prof",
        "rev",
        "hon",
        "gen",
        "col",
        "lt",
        "sgt",
        "capt",
        "st",
        "mt",
        "fig",
        "figs",
        "eq",
        "eqs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "ch",
        "sec",
        "approx",
        "ca",
        "resp",
        "dept",
    ]
)
# End a sentence only when the next word starts upper-case.
_MAYBE_ABBREVIATIONS = frozenset(["etc", "inc", "ltd", "co", "corp", "al", "jr", "sr", "bros"])


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
    if lowered in _ABBREVIATIONS:
        return False
    if len(word) == 1 and word.isalpha() and word.isupper():
        return False  # an initial, "J. Smith"
    if lowered in _MAYBE_ABBREVIATIONS or _DOTTED_ACRONYM.fullmatch(word):
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
