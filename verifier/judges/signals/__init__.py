"""Lexical signals for the heuristic judge: pure functions over a claim and one span.

``profile(text)`` tokenizes once; ``compare(claim, span)`` returns the coverage of the
claim's content words by the span and every blocking signal found (negation/antonym
polarity, numbers, dates, units, named entities, scope and modality). No model here:
embedding similarity is added by ``verifier.judges.heuristic``.

What lives where:

- ``text_profile``: ``profile()`` and its ``TextProfile``, with the readers behind it
  (tokens, lemmas and concepts, clauses and sentences, numbers as ``NumberMention``,
  names, negations, scope markers as ``ScopeMarker``) and the word lists they use.
- ``blocker``: ``Blocker``, one signal that stops a span entailing the claim.
- ``numbers``: numbers, dates and units: matched, bounded, approximate or worked out
  from the span's own; ``number_blockers``.
- ``entities``: names, initials and demonyms; ``entity_blockers``.
- ``scope``: hedges, quantifiers and modality (``scope_blockers``), quantifiers that state
  a share, superlatives, and a span that only asks.
- ``polarity``: comparisons with "than", negations and antonyms (``polarity_blockers``).
- ``regions``: which parts of the span bear on the claim: relevant clauses, frames, the
  scope markers in force and the claim's region.
- ``references``: what the claim's words may stand for (a span pronoun for its subject,
  names from the context) and whether a text attributes what it says.
- ``comparison``: ``compare()`` and its ``Comparison``: word alignment, coverage and the
  blockers of every module above.

Names without a leading underscore in these modules are the package's internal API;
the rest of the project imports from here.
"""

from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.comparison import (
    Comparison,
    compare,
    coverage_ceiling,
    distinct_content,
    may_flip,
    opposed_concepts,
    stem_matches,
    word_in,
)
from verifier.judges.signals.text_profile import NumberMention, ScopeMarker, TextProfile, profile

__all__ = [
    "Blocker",
    "Comparison",
    "NumberMention",
    "ScopeMarker",
    "TextProfile",
    "compare",
    "coverage_ceiling",
    "distinct_content",
    "may_flip",
    "opposed_concepts",
    "profile",
    "stem_matches",
    "word_in",
]
