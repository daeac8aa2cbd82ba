"""Word-level canonical forms for comparing what was said with what is claimed (pure).

The three non-material differences of seed 002 are folded away step by step, so the drift
rules can tell which of them a pair needed:

1. ``filler_removal`` — "uh", "um", "you know", ... are dropped;
2. ``tense_normalization`` — "would"/"'ll"/"'d" → "will", "sent" → "send", "was" → "is";
3. ``synonym_substitution`` — "deliver", "share", "email" → "send", "reserve" → "book".

Tokens keep their character offsets in the original text so findings can be shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from verifier.text.synonyms import MEMORY_SYNONYMS
from verifier.text.words import MEMORY_TOKEN

NON_MATERIAL: Final = ("synonym_substitution", "tense_normalization", "filler_removal")


FILLERS: Final = frozenset({"uh", "um", "uhm", "umm", "er", "erm", "ah", "hmm", "mm", "eh"})
# Multi-word fillers, matched on lower-cased token runs.
FILLER_PHRASES: Final = (("you", "know"), ("i", "mean"))

_CONTRACTIONS: Final = {
    "i'll": ("i", "will"),
    "we'll": ("we", "will"),
    "you'll": ("you", "will"),
    "it'll": ("it", "will"),
    "they'll": ("they", "will"),
    "i'd": ("i", "would"),
    "we'd": ("we", "would"),
    "you'd": ("you", "would"),
    "won't": ("will", "not"),
    "can't": ("can", "not"),
    "cannot": ("can", "not"),
    "don't": ("do", "not"),
    "doesn't": ("do", "not"),
    "didn't": ("do", "not"),
    "isn't": ("is", "not"),
    "wasn't": ("is", "not"),
    "aren't": ("are", "not"),
    "i'm": ("i", "am"),
    "we're": ("we", "are"),
    "you're": ("you", "are"),
    "they're": ("they", "are"),
    "i've": ("i", "have"),
    "we've": ("we", "have"),
    "it's": ("it", "is"),
    "that's": ("that", "is"),
    "there's": ("there", "is"),
    "let's": ("let", "us"),
}

TENSE: Final = {
    "would": "will",
    "shall": "will",
    "could": "can",
    "was": "is",
    "were": "are",
    "am": "is",
    "had": "have",
    "has": "have",
    "did": "do",
    "does": "do",
    "sent": "send",
    "sending": "send",
    "sends": "send",
    "said": "say",
    "told": "tell",
    "made": "make",
    "got": "get",
    "gave": "give",
    "went": "go",
    "took": "take",
    "bought": "buy",
    "found": "find",
    "booked": "book",
    "booking": "book",
    "reserved": "reserve",
    "scheduled": "schedule",
    "confirmed": "confirm",
    "checked": "check",
    "delivered": "deliver",
    "shared": "share",
    "emailed": "email",
    "forwarded": "forward",
    "provided": "provide",
    "finished": "finish",
    "completed": "complete",
    "started": "start",
    "called": "call",
    "purchased": "purchase",
    "arranged": "arrange",
    "updated": "update",
    "fixed": "fix",
    "submitted": "submit",
    "wrote": "write",
    "written": "write",
    "looked": "look",
    "added": "add",
}


@dataclass(frozen=True)
class Token:
    text: str  # lower-cased surface form (or one part of an expanded contraction)
    start: int
    end: int


def tokens(text: str) -> list[Token]:
    """Lower-cased word tokens with contractions expanded (parts share the offsets)."""
    out: list[Token] = []
    for m in MEMORY_TOKEN.finditer(text):
        word = m.group().lower().replace("\u2019", "'")
        parts: tuple[str, ...] | None = _CONTRACTIONS.get(word)
        if parts is None and word.endswith("n't"):
            parts = (word[:-3], "not")
        if parts is None and word.endswith("'s"):
            parts = (word[:-2],)
        for part in parts or (word,):
            out.append(Token(part, m.start(), m.end()))
    return out


def drop_fillers(toks: list[Token]) -> list[Token]:
    """``toks`` without fillers ("uh", "um", "you know", ...)."""
    out: list[Token] = []
    i = 0
    while i < len(toks):
        word = toks[i].text
        pair = (word, toks[i + 1].text) if i + 1 < len(toks) else None
        if pair in FILLER_PHRASES:
            i += 2
            continue
        if word in FILLERS:
            i += 1
            continue
        out.append(toks[i])
        i += 1
    return out


def tense(word: str) -> str:
    return TENSE.get(word, word)


def synonym(word: str) -> str:
    return MEMORY_SYNONYMS.get(word, word)


def canonical(word: str) -> str:
    """Tense-normalised, then synonym-folded form of one lower-cased word."""
    return synonym(tense(word))


def words(toks: list[Token]) -> list[str]:
    return [t.text for t in toks]
