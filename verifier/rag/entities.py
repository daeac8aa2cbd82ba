"""Entity substitution: the claim names "the Pacific Ocean" where its chunk says "the
Atlantic Ocean" (pure Python).

A multi-word proper name of the claim that the evidence does not contain, while the
evidence holds a name with the same head word but a different modifier, is a
substitution: the chunk states a different, exclusive fact. The heuristic judge accepts
a partial name match ("Einstein" for "Albert Einstein"), which is right for dropped
first names but not for swapped modifiers, so the RAG audit checks this itself.
"""

from __future__ import annotations

from verifier.text.words import MULTIWORD_NAME

_LEADING = frozenset({"the", "a", "an", "in", "on", "at", "of", "and", "but", "it", "this"})


def names(text: str) -> list[tuple[str, ...]]:
    out = []
    for m in MULTIWORD_NAME.finditer(text):
        words = tuple(w.lower() for w in m.group().split())
        while words and words[0] in _LEADING:
            words = words[1:]
        if len(words) >= 2:
            out.append(words)
    return out


def substitution(claim: str, evidence: str) -> tuple[str, str] | None:
    """(claim name, evidence name) for the first swapped name, else None."""
    evidence_lower = " ".join(evidence.lower().split())
    evidence_names = names(evidence)
    for name in names(claim):
        if " ".join(name) in evidence_lower:
            continue
        for other in evidence_names:
            if other[-1] == name[-1] and set(other[:-1]).isdisjoint(name[:-1]):
                return " ".join(name), " ".join(other)
    return None
