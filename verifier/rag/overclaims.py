"""Over-claims: absolute words and dropped hedges the evidence does not license (pure).

The heuristic judge already refuses ``entailed`` on most scope mismatches; this module
names them for the RAG note ("over-claim: 'always' — c1 does not say so") and softens
them for the suggested fix. It works on words, so it also covers judges that only
answer a label (an OpenAI-compatible model) and verbs of certainty ("proves").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.text.hedges import OVERCLAIM_HEDGES
from verifier.text.words import LATIN_WORD

# Absolute word -> the softer wording used in a suggested fix ("" drops the word).
ABSOLUTES: dict[str, str] = {
    "always": "often",
    "never": "rarely",
    "all": "many",
    "every": "many",
    "everyone": "many people",
    "everything": "much",
    "none": "few",
    "nobody": "few people",
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


def find_overclaims(claim: str, evidence: str) -> list[Overclaim]:
    """Absolute words of ``claim`` missing from ``evidence``; or a hedge it dropped."""
    claim_words = _lower_words(claim)
    evidence_words = _lower_words(evidence)
    evidence_set = set(evidence_words)
    hedge = next((w for w in evidence_words if w in OVERCLAIM_HEDGES), "")
    out = []
    for word in dict.fromkeys(claim_words):
        if word in ABSOLUTES and word not in evidence_set:
            out.append(Overclaim(word, "absolute", hedge))
    if not out and hedge and not set(claim_words) & OVERCLAIM_HEDGES:
        out.append(Overclaim("", "dropped_hedge", hedge))
    return out


def soften(text: str, overclaims: list[Overclaim]) -> str:
    """``text`` with its absolute words replaced by softer ones (dropped where "")."""
    words = {o.word for o in overclaims if o.kind == "absolute"}
    if not words:
        return text

    def repl(m: re.Match[str]) -> str:
        word = m.group(0)
        if word.lower() not in words:
            return word
        soft = ABSOLUTES[word.lower()]
        if soft and word[:1].isupper():
            soft = soft[:1].upper() + soft[1:]
        return soft

    softened = LATIN_WORD.sub(repl, text)
    softened = re.sub(r"\b(the|The)\s+(index|one|way)\b", r"\1 \2", softened)
    return " ".join(softened.split())
