"""Over-claims: absolute words and dropped hedges the evidence does not license (pure).

The heuristic judge already refuses ``entailed`` on most scope mismatches; this module
names them for the RAG note ("over-claim: 'always' — c1 does not say so") and softens
them for the suggested fix. It works on words, so it also covers judges that only
answer a label (an OpenAI-compatible model) and verbs of certainty ("proves").

"every" / "each" before a count or a period ("every 2 years", "every year", "each
spring") states a frequency, not a universal: it is no over-claim (the numbers and dates
are the judge's to check). A quantifier before a count or a period is never rewritten
("every 2 years" must not become "many 2 years"): ``soften`` leaves it, and the fix then
restates the chunk instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.judges.lexicon import MONTHS, NUMBER_WORDS
from verifier.text.hedges import OVERCLAIM_HEDGES
from verifier.text.words import LATIN_WORD

# Absolute word -> the softer wording used in a suggested fix ("" drops the word). Each
# takes the place of the word without changing the grammar around it: "every benchmark"
# -> "nearly every benchmark" (not "many benchmark"), "nobody knows" -> "hardly anyone
# knows"; "all" is worded by its neighbours (``_soft_all``).
ABSOLUTES: dict[str, str] = {
    "always": "often",
    "never": "rarely",
    "all": "many",
    "every": "nearly every",
    "everyone": "nearly everyone",
    "everything": "much",
    "none": "few",
    "nobody": "hardly anyone",
    "only": "",
    "sole": "",
    "proves": "suggests",
    "proved": "suggested",
    "proven": "suggested",
    "prove": "suggest",
    "guarantees": "supports",
    "guaranteed": "likely",
    "guarantee": "support",
    "certainly": "",
    "definitely": "",
    "undoubtedly": "",
    "invariably": "often",
    "completely": "largely",
    "entirely": "largely",
    "eliminates": "reduces",
    "eliminate": "reduce",
    "impossible": "unlikely",
    "universally": "widely",
}


# Quantifiers that, before a count or a period, make a frequency ("every 2 years") or a
# count ("all 3 patients"), not a universal a softer word could replace.
COUNTING_QUANTIFIERS = frozenset({"every", "each", "all"})
FREQUENCY_QUANTIFIERS = frozenset({"every", "each"})
PERIODS = MONTHS | frozenset(
    [
        "second",
        "minute",
        "hour",
        "day",
        "night",
        "week",
        "weekend",
        "fortnight",
        "month",
        "quarter",
        "season",
        "year",
        "decade",
        "century",
        "generation",
        "morning",
        "afternoon",
        "evening",
        "spring",
        "summer",
        "autumn",
        "fall",
        "winter",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
)
# What counts a period ("every 2 years", "every other week", "each few days").
COUNT_WORDS = frozenset(NUMBER_WORDS) | frozenset(
    ["thousand", "million", "other", "few", "couple", "several"]
)
_NEXT_TOKEN = re.compile(r"[\s\-]+(\d|[A-Za-z]+)")
_PREVIOUS_TOKEN = re.compile(r"([A-Za-z]+)\s+$")
# "all" before one of these is "many of" ("all the patients" -> "many of the patients");
# after one of these it is an adverb ("they all recovered" -> "they mostly recovered");
# in these idioms it is no quantifier at all ("at all", "above all", "after all").
_ALL_BEFORE_DETERMINER = frozenset(
    [
        "the",
        "these",
        "those",
        "this",
        "that",
        "its",
        "their",
        "his",
        "her",
        "our",
        "my",
        "your",
        "of",
    ]
)
_ALL_AFTER_PRONOUN = frozenset(["they", "we", "you", "them", "us", "these", "those"])
_ALL_IDIOMS = frozenset(["at", "above", "after"])


def _before_count_or_period(rest: str) -> bool:
    """Whether ``rest`` (the text after a quantifier) opens with a number, a count word
    or a period ("every 2 years", "every other day", "each spring")."""
    m = _NEXT_TOKEN.match(rest)
    if m is None:
        return False
    token = m.group(1).lower()
    if token.isdigit() or token in COUNT_WORDS:
        return True
    return token in PERIODS or (token.endswith("s") and token[:-1] in PERIODS)


@dataclass(frozen=True)
class Overclaim:
    word: str  # as written in the claim
    kind: str  # "absolute" | "dropped_hedge"
    evidence_word: str = ""  # the hedge the evidence uses, if any

    def describe(self, chunk_id: str) -> str:
        if self.kind == "absolute":
            said = f"; it says '{self.evidence_word}'" if self.evidence_word else ""
            who = f"{chunk_id} does not say" if chunk_id != "no chunk" else "no chunk says"
            return f"over-claim: '{self.word}' — {who} so{said}"
        return f"over-claim: {chunk_id} hedges with '{self.evidence_word}', the claim does not"


def _lower_words(text: str) -> list[str]:
    return [w.lower() for w in LATIN_WORD.findall(text)]


def _absolutes(claim: str) -> list[str]:
    """The claim's absolute words, in order, once each; "every" / "each" before a count
    or a period (a frequency) left out."""
    out: dict[str, None] = {}
    for m in LATIN_WORD.finditer(claim):
        word = m.group(0).lower()
        if word not in ABSOLUTES:
            continue
        if word in FREQUENCY_QUANTIFIERS and _before_count_or_period(claim[m.end() :]):
            continue
        out[word] = None
    return list(out)


def find_overclaims(claim: str, evidence: str) -> list[Overclaim]:
    """Absolute words of ``claim`` missing from ``evidence``; or a hedge it dropped."""
    claim_words = _lower_words(claim)
    evidence_words = _lower_words(evidence)
    evidence_set = set(evidence_words)
    hedge = next((w for w in evidence_words if w in OVERCLAIM_HEDGES), "")
    out = []
    for word in _absolutes(claim):
        if word not in evidence_set:
            out.append(Overclaim(word, "absolute", hedge))
    if not out and hedge and not set(claim_words) & OVERCLAIM_HEDGES:
        out.append(Overclaim("", "dropped_hedge", hedge))
    return out


def _soft_all(before: str, rest: str) -> str:
    """The softer wording of "all" between ``before`` and ``rest``."""
    previous = _PREVIOUS_TOKEN.search(before)
    prev = previous.group(1).lower() if previous else ""
    following = _NEXT_TOKEN.match(rest)
    nxt = following.group(1).lower() if following else ""
    if prev in _ALL_IDIOMS:
        return "all"
    if prev in _ALL_AFTER_PRONOUN:
        return "mostly"
    if nxt in _ALL_BEFORE_DETERMINER:
        return "many" if nxt == "of" else "many of"
    return ABSOLUTES["all"]


def soften(text: str, overclaims: list[Overclaim]) -> str:
    """``text`` with its absolute words replaced by softer ones (dropped where ""); a
    quantifier before a count or a period is left as it is."""
    words = {o.word for o in overclaims if o.kind == "absolute"}
    if not words:
        return text

    def repl(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower() not in words:
            return word
        rest = text[m.end() :]
        if word.lower() in COUNTING_QUANTIFIERS and _before_count_or_period(rest):
            return word
        soft = ABSOLUTES[word.lower()]
        if word.lower() == "all":
            soft = _soft_all(text[: m.start()], rest)
        if soft and word[:1].isupper():
            soft = soft[:1].upper() + soft[1:]
        return soft

    softened = LATIN_WORD.sub(repl, text)
    softened = re.sub(r"\b(the|The)\s+(index|one|way)\b", r"\1 \2", softened)
    return " ".join(softened.split())
