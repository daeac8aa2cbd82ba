"""Pure rules for the relate stage: which entities a claim mentions, and which relation
(if any) links two claims. No Django imports.

* Entities are runs of one to four capitalised words (``Marrow River``, ``Aristotle``),
  plus their lower-cased normal form. A capitalised stop word at the start of a sentence
  (``The``, ``In``) is not an entity; runs shorter than three characters are dropped.
* Two claims that share an entity are related when their content concepts overlap by
  Jaccard ≥ ``RELATE_MIN_OVERLAP``: when each states a value (a number, a year, a month)
  the other does not, ``contradicts`` ("completed in 1952" / "in 1955"), or no relation
  when a negation or a unit word only one of them has makes them incomparable;
  otherwise ``contradicts`` when exactly one of them is negated, else ``supports``.
  Consecutive claims of one source that share an entity or
  ``ELABORATE_MIN_SHARED`` content concepts: the later ``elaborates`` the earlier.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from verifier.judges.lexicon import MONTHS, UNIT_CANONICAL, concept
from verifier.judges.signals.text_profile import is_numeric, parse_number
from verifier.text.negations import has_negation
from verifier.text.stopwords import STOPWORDS
from verifier.text.words import CAPITALISED_RUN, UNICODE_WORD

RELATE_MIN_OVERLAP: Final = 0.5
ELABORATE_MIN_SHARED: Final = 2
MAX_ENTITY_WORDS: Final = 4
MIN_ENTITY_CHARS: Final = 3


def normalize_entity(name: str) -> str:
    return " ".join(name.lower().split())


def entity_mentions(text: str) -> dict[str, str]:
    """{normalized name: name as written} of the entities ``text`` mentions."""
    found: dict[str, str] = {}
    for match in CAPITALISED_RUN.finditer(text):
        words = match.group(0).split()
        before = text[: match.start()].rstrip()
        sentence_start = not before or before[-1] in ".!?:;\"'“("
        stripped = 0
        while words and words[0].lower() in STOPWORDS:
            words, stripped = words[1:], stripped + 1
        name = " ".join(words[:MAX_ENTITY_WORDS]).strip(".,;:'’\"")
        if len(name) < MIN_ENTITY_CHARS:
            continue
        if sentence_start and not stripped and len(words) == 1 and not _proper(name):
            continue  # an ordinary word that merely starts the sentence
        found.setdefault(normalize_entity(name), name)
    return found


def _proper(word: str) -> bool:
    """A single sentence-initial capitalised word counts only when it is not an
    ordinary word: all-caps acronyms and words with inner capitals qualify."""
    return word.isupper() or any(c.isupper() for c in word[1:])


def is_negated(text: str) -> bool:
    return has_negation(w.lower() for w in UNICODE_WORD.findall(text))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


# Concepts (``verifier.judges.lexicon.concept``, as ``content_concepts`` gives them) of
# unit words, and of the months but "may" and "march" (as often a verb as a month).
_UNITS: Final = frozenset(concept(w) for w in UNIT_CANONICAL if w.isalpha())
_MONTHS: Final = frozenset(concept(m) for m in MONTHS - {"may", "march"})


def _values(concepts: frozenset[str]) -> dict[str, float | str]:
    """{concept: value} of the concepts that state a value: numbers (read as the judge
    reads them, so "1,952" is 1952) and months."""
    out: dict[str, float | str] = {}
    for c in concepts:
        if is_numeric(c):
            number = parse_number(c)
            if number is not None:
                out[c] = number
        elif c in _MONTHS:
            out[c] = c
    return out


def values_differ(concepts_a: frozenset[str], concepts_b: frozenset[str]) -> bool:
    """Whether each claim states a value the other does not ("in 1952" / "in 1955");
    one that only adds a value ("in 1952, for £3 million") differs in nothing."""
    a, b = set(_values(concepts_a).values()), set(_values(concepts_b).values())
    return bool(a - b) and bool(b - a)


def relation_kind(
    concepts_a: frozenset[str], concepts_b: frozenset[str], negated_a: bool, negated_b: bool
) -> str | None:
    """``supports`` / ``contradicts`` for two entity-sharing claims, or None."""
    if jaccard(concepts_a, concepts_b) < RELATE_MIN_OVERLAP:
        return None
    if values_differ(concepts_a, concepts_b):
        if negated_a or negated_b or (concepts_a ^ concepts_b) & _UNITS:
            return None  # "not in 1952" / "in 1955"; "300 metres" / "984 feet"
        return "contradicts"
    return "contradicts" if negated_a != negated_b else "supports"


def elaborates(concepts_a: frozenset[str], concepts_b: frozenset[str], share_entity: bool) -> bool:
    return share_entity or len(concepts_a & concepts_b) >= ELABORATE_MIN_SHARED
