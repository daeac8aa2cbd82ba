"""Negation words: one base list, the two wider lists built on it, and the one test of
whether a sentence's words are negated.

* ``NEGATIVE_WORDS`` — the words that negate by themselves (not, no, never, none, …).
  The claim-verification worker reads these (``verifier.claim_worker.text``: a claim's
  ``negated`` feature; it does not count "without" nor "n't").
* ``NEGATIONS`` — those plus the negating preposition "without": what the relate stage
  (``verifier.pipeline.relating``) and the rule-set preview
  (``verifier.scoring.dimension_heuristics``) count, through ``has_negation``, which
  also counts any word ending in "n't".
* ``NEGATION_WORDS`` — every cue the heuristic judge and the NLI features read as
  negation: ``NEGATIONS`` plus ``JUDGE_NEGATION_CUES`` (verbs and adjectives of denial
  and failure, "n't" as its own token, and the adjectives that say "not" by themselves:
  "independent of" is "does not depend on", "unchanged" is "did not change").
  ``NON_NEGATION_PHRASES`` are the two-word phrases that start with a cue but do not
  negate ("not only", "no doubt").

"neither" and "without" are also judge stopwords (``verifier.text.stopwords``): they
count for no content-word coverage, yet their polarity is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

NEGATIVE_WORDS: Final = frozenset("not no never none nobody nothing neither nor".split())
NEGATIONS: Final = NEGATIVE_WORDS | {"without"}

# Single tokens after the judge's tokenization ("n't" is split off as its own token).
JUDGE_NEGATION_CUES: Final = frozenset(
    """
    n't nowhere cannot
    lack lacks lacked lacking absence absent
    fail fails failed failing unable
    refute refutes refuted deny denies denied
    false untrue myth hardly barely
    disprove disproves disproved disproven debunk debunks debunked
    contrary contradict contradicts contradicted
    independent independently unrelated unaffected unconnected unchanged
    """.split()
)
NEGATION_WORDS: Final = NEGATIONS | JUDGE_NEGATION_CUES

# Two-word phrases that start with a cue word but are not negations.
NON_NEGATION_PHRASES: Final[tuple[tuple[str, str], ...]] = (
    ("not", "only"),
    ("not", "just"),
    ("not", "merely"),
    ("no", "doubt"),
    ("no", "less"),
    ("no", "fewer"),  # "no fewer than 73" is "at least 73"
    ("no", "matter"),  # "no matter how much": a concession, not a negation
    ("no", "cost"),  # "at no cost" is "free of charge"
    ("no", "charge"),
    ("not", "least"),
    ("not", "until"),
    ("no", "sooner"),
    ("nothing", "but"),
    ("without", "exception"),
    ("without", "doubt"),
    ("no", "longer"),
)


def has_negation(words: Iterable[str]) -> bool:
    """Is one of the (lower-cased) ``words`` in ``NEGATIONS`` or a "n't" contraction?"""
    return any(word in NEGATIONS or word.endswith("n't") for word in words)
