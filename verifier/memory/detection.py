"""Detect explicit memory claims in an agent's message (seed 002 lanes; pure Python).

* **verbatim** — the agent claims to quote itself exactly: ``I said "X"``, ``My exact
  words were: X``, ``"X," I said``;
* **summarized** — the agent paraphrases itself: ``I mentioned that X``, ``I said
  something like X``, ``I told you X``;
* **implicit** — "as discussed", "per our agreement": no explicit memory marker. Out of
  scope in v1 (reported, never verified).

A ``you said ...`` claim is detected too, with ``actor="addressee"``: when the content is
the agent's own earlier words, the speaker was swapped (``actor_shift``). A message with
no marker at all is an *undeclared* claim, also out of scope.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from verifier.text.sentences import sentence_spans

Lane = Literal["verbatim", "summarized", "implicit", "undeclared"]
Actor = Literal["self", "addressee"]
IN_SCOPE: Final = frozenset({"verbatim", "summarized"})

_FILLER = r"(?:,?\s*(?:uh|um|uhm|umm|er|erm|ah)\b,?)*"
# Up to two short words between the speaker and the verb: an adverb or the auxiliary
# have/had ("I also told you", "I already said", "you previously mentioned", "I have
# said", "I just, um, said"; "I've said" too).
BETWEEN_WORDS: Final = (
    "have",
    "had",
    "also",
    "already",
    "previously",
    "just",
    "earlier",
    "clearly",
    "definitely",
    "explicitly",
    "specifically",
    "actually",
    "even",
    "once",
    "originally",
    "literally",
    "certainly",
    "honestly",
    "really",
    "only",
    "then",
    "first",
)
_ADV = rf"(?:(?i:{'|'.join(BETWEEN_WORDS)})\b{_FILLER}\s+){{0,2}}"
_SELF = rf"\b(?:I|i)(?:['\u2019]ve)?{_FILLER}\s+{_ADV}"
_YOU = rf"\b(?:[Yy]ou)(?:['\u2019]ve)?{_FILLER}\s+{_ADV}"
_WHEN = r"(?:\s+(?:earlier|before|previously|yesterday|already|once|last\s+time|to\s+you|to\s+me))?"
_QUOTED = (
    r"(?:\"(?P<q1>[^\"\n]+)\"|\u201c(?P<q2>[^\u201d\n]+)\u201d"
    r"|\u2018(?P<q3>[^\n]+?)\u2019(?![A-Za-z])|'(?P<q4>[^\n]+?)'(?![A-Za-z]))"
)
_REST = r"(?P<r>(?![\"\u201c\u2018'])[^\n]+?)(?=[.!?](?:\s|$)|\n|$)"
_SAY = r"(?:said|wrote|stated|told\s+you|promised|put\s+it|replied|answered)"
_MENTION = (
    r"(?:mentioned|said|noted|told\s+you|explained|promised|confirmed|stated|indicated"
    r"|suggested|agreed|committed|wrote|let\s+you\s+know|pointed\s+out)"
)
_YOU_SAY = r"(?:said|wrote|told\s+me|mentioned|promised|stated|asked)"

_PATTERNS: Final[tuple[tuple[Lane, Actor, re.Pattern[str]], ...]] = (
    (
        "verbatim",
        "self",
        re.compile(rf"\b[Mm]y\s+(?:exact\s+)?words\s+were{_FILLER}[:,]?\s*(?:{_QUOTED}|{_REST})"),
    ),
    (
        "verbatim",
        "self",
        re.compile(
            rf"{_SELF}{_SAY}{_WHEN}(?:,?\s*(?:quote|verbatim|word\s+for\s+word|exactly))?"
            rf"[,:]?\s*{_QUOTED}"
        ),
    ),
    ("verbatim", "self", re.compile(rf"{_QUOTED},?\s*{_SELF}{_SAY}\b")),
    ("verbatim", "addressee", re.compile(rf"{_YOU}{_YOU_SAY}{_WHEN}[,:]?\s*{_QUOTED}")),
    (
        "summarized",
        "self",
        re.compile(
            rf"{_SELF}(?:said|wrote|mentioned)\s+something\s+(?:like|along\s+the\s+lines\s+of)"
            rf"[,:]?\s*(?:{_QUOTED}|{_REST})"
        ),
    ),
    (
        "summarized",
        "self",
        re.compile(rf"{_SELF}{_MENTION}{_WHEN},?\s+(?:that\s+)?{_REST}"),
    ),
    (
        "summarized",
        "addressee",
        re.compile(rf"{_YOU}{_YOU_SAY}{_WHEN},?\s+(?:that\s+)?{_REST}"),
    ),
    (
        "implicit",
        "self",
        re.compile(
            r"\b(?:[Aa]s\s+(?:we\s+)?(?:previously\s+)?(?:discussed|agreed|planned|mentioned|noted)"
            r"|[Pp]er\s+our\s+(?:agreement|discussion|conversation|call|chat)"
            r"|[Ll]ike\s+we\s+(?:said|discussed)|[Aa]s\s+promised)\b,?\s*" + _REST
        ),
    ),
)


# A sentence that speaks of what "I" or "you" said, in words the lanes do not read ("I
# honestly and truly told you", "I did say"): memory-like, so it is never dropped.
_MEMORY_LIKE: Final = re.compile(
    r"\b(?:I|i|[Yy]ou)\b(?:['\u2019]\w+)?(?:\W+\w+){0,4}?\W+"
    r"(?:said|say|wrote|told|mentioned|stated|promised|noted|explained|confirmed|indicated"
    r"|suggested|committed|replied|answered|pointed\s+out|let\s+you\s+know)\b"
    r"|\b[Mm]y\s+(?:exact\s+)?words\b"
)


@dataclass(frozen=True)
class MemoryClaim:
    """One claim: its lane, who it says spoke, and the claimed content with its offsets
    ``[start, end)`` in the message (``marker_start`` is where the memory marker begins)."""

    lane: Lane
    actor: Actor
    content: str
    start: int
    end: int
    marker_start: int
    # where the claim's words end in the message, marker included: past ``end`` when the
    # marker follows the quote ('"X," I said'); -1 when that is ``end``
    marker_end: int = -1

    @property
    def covers(self) -> tuple[int, int]:
        """``[start, end)`` of the whole claim in the message: marker and content."""
        return self.marker_start, max(self.end, self.marker_end)

    @property
    def in_scope(self) -> bool:
        return self.lane in IN_SCOPE


# A clause joined after the content ("I said that I'd send it, and you said 'ok'"): the
# conjunction is not part of what was said.
_TRAILING_JOIN = re.compile(r"(?:[\s,;:]+(?:and|but|or|then|while|so))+\s*$", re.IGNORECASE)


def _content(match: re.Match[str]) -> tuple[str, int, int] | None:
    for group in ("q1", "q2", "q3", "q4", "r"):
        value = match.groupdict().get(group)
        if value is not None:
            start = match.start(group)
            if group == "r":
                value = _TRAILING_JOIN.sub("", value)
            stripped = value.rstrip(" ,;:")
            lead = len(stripped) - len(stripped.lstrip())
            text = stripped.strip()
            if text:
                return text, start + lead, start + lead + len(text)
    return None


def detect_claims(message: str) -> list[MemoryClaim]:
    """Explicit (and implicit) memory claims in ``message``, in reading order; where two
    patterns overlap, the first pattern (verbatim before summarized) wins."""
    found: list[MemoryClaim] = []
    taken: list[tuple[int, int]] = []
    for lane, actor, pattern in _PATTERNS:
        pos = 0
        while (match := pattern.search(message, pos)) is not None:
            s, e = match.span()
            pos = s + 1
            overlapping = [ts for ts, te in taken if s < te and ts < e]
            if overlapping:
                # A claim taken already further on ("I said that I'd send it, and you
                # said 'ok'"): this one ends where that one begins, if it still matches.
                if min(overlapping) <= s:
                    continue
                shorter = pattern.match(message, s, min(overlapping))
                if shorter is None:
                    continue
                match = shorter
                e = match.end()
            content = _content(match)
            if content is None:
                continue
            text, cs, ce = content
            found.append(MemoryClaim(lane, actor, text, cs, ce, s, e))
            taken.append((s, e))
    return sorted(found, key=lambda c: c.marker_start)


def undeclared(message: str) -> MemoryClaim:
    """The whole message as an undeclared claim (no memory marker; out of scope)."""
    text = message.strip()
    start = message.find(text) if text else 0
    return MemoryClaim("undeclared", "self", text, start, start + len(text), start)


def message_claims(message: str) -> list[MemoryClaim]:
    """Every claim of ``message`` to report, in reading order: its explicit and implicit
    claims (``detect_claims``) and, beside them, each memory-like sentence that no claim
    covers (a marker the lanes do not read) as an undeclared claim of its own, so that no
    such sentence vanishes from the result; a message without any claim is one undeclared
    claim (``undeclared``)."""
    claims = detect_claims(message)
    if not claims:
        return [undeclared(message)]
    covered = sorted(c.covers for c in claims)
    for start, end in sentence_spans(message):
        for piece_start, piece_end in _uncovered(start, end, covered):
            piece = message[piece_start:piece_end]
            text = piece.strip(" \t\n,;:\"'\u201c\u201d\u2018\u2019")
            if not text or not _MEMORY_LIKE.search(text):
                continue
            lead = piece_start + piece.find(text)
            claims.append(MemoryClaim("undeclared", "self", text, lead, lead + len(text), lead))
    return sorted(claims, key=lambda c: c.marker_start)


def _uncovered(start: int, end: int, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The stretches of ``[start, end)`` outside every (sorted) covered span."""
    out: list[tuple[int, int]] = []
    pos = start
    for cs, ce in covered:
        if ce <= pos or cs >= end:
            continue
        if cs > pos:
            out.append((pos, cs))
        pos = max(pos, ce)
    if pos < end:
        out.append((pos, end))
    return out
