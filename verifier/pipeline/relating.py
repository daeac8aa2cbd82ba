"""Pure rules for the relate stage: which entities a claim mentions, and which relation
(if any) links two claims. No Django imports.

* Entities are runs of one to four capitalised words (``Marrow River``, ``Aristotle``),
  plus their lower-cased normal form. A capitalised stop word at the start of a sentence
  (``The``, ``In``) is not an entity; runs shorter than three characters are dropped.
* Two claims that share an entity are related when their content concepts overlap by
  Jaccard ≥ ``RELATE_MIN_OVERLAP``: ``contradicts`` when exactly one of them is negated,
  else ``supports``. Consecutive claims of one source that share an entity or
  ``ELABORATE_MIN_SHARED`` content concepts: the later ``elaborates`` the earlier.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

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


def relation_kind(
    concepts_a: frozenset[str], concepts_b: frozenset[str], negated_a: bool, negated_b: bool
) -> str | None:
    """``supports`` / ``contradicts`` for two entity-sharing claims, or None."""
    if jaccard(concepts_a, concepts_b) < RELATE_MIN_OVERLAP:
        return None
    return "contradicts" if negated_a != negated_b else "supports"


def elaborates(concepts_a: frozenset[str], concepts_b: frozenset[str], share_entity: bool) -> bool:
    return share_entity or len(concepts_a & concepts_b) >= ELABORATE_MIN_SHARED
