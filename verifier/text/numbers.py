"""Numbers written as words: one set of tables for every reader.

* ``NUMBER_WORDS`` — cardinals and multipliers with their values ("forty" is 40,
  "twice" is 2); ``ORDINAL_WORDS`` ("third" is 3); ``FRACTION_DENOMINATORS`` and their
  plurals ("two thirds"); ``MAGNITUDE_WORDS`` ("million", "bn"). The heuristic judge
  reads values from these (``verifier.judges.lexicon`` re-exports them), and so do the
  RAG audit's word lists.
* ``WRITTEN_NUMBER_WORDS`` — every word above, plus the few that only say "a number is
  here" ("once", "quadruple", "hundredth"): what a fuzzy bind may not change
  (``verifier.binding.fuzzy_guard``).

English, as the negation words are.
"""

from __future__ import annotations

from typing import Final

NUMBER_WORDS: dict[str, float] = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "dozen": 12,
    "half": 0.5,
    "twice": 2,
    "double": 2,
    "triple": 3,
    "thrice": 3,
}
ORDINAL_WORDS: dict[str, int] = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
}
# Shares said in words: "a third", "one quarter"; "two thirds", "three quarters".
FRACTION_DENOMINATORS: dict[str, int] = {
    "third": 3,
    "quarter": 4,
    "fifth": 5,
    "sixth": 6,
    "eighth": 8,
    "tenth": 10,
}
FRACTION_DENOMINATORS_PLURAL: dict[str, int] = {
    f"{w}s": d for w, d in FRACTION_DENOMINATORS.items()
}

MAGNITUDE_WORDS: dict[str, float] = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "bn": 1e9,
}

# Words that name a number without a value the judge reads.
_OTHER_NUMBER_WORDS: Final = frozenset("hundredth thousandth millionth once quadruple".split())
WRITTEN_NUMBER_WORDS: Final = (
    frozenset(NUMBER_WORDS)
    | frozenset(ORDINAL_WORDS)
    | frozenset(FRACTION_DENOMINATORS)
    | frozenset(FRACTION_DENOMINATORS_PLURAL)
    | frozenset(MAGNITUDE_WORDS)
    | _OTHER_NUMBER_WORDS
)
