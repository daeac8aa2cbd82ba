"""What a fuzzy bind may not change: a negation, or a number.

The fuzzy stage accepts small transcription slips ("colour"/"color", a dropped article).
Two slips of a few characters each are not slips: "The pier was never closed in 2019."
is at 0.90 similarity to "The pier was closed in 2019.", and "1,900 visitors" at 0.97
to "1,200 visitors", yet each says the opposite or another fact. So a fuzzy span is
refused when it and the quote differ in

* **negation**: the words of ``verifier.text.negations.NEGATIONS`` (not, no, never,
  none, nobody, nothing, neither, nor, without) plus "cannot", "non" (of "non-toxic")
  and any word ending in "n't"; "n't", "cannot" and "not" count as one word, so "isn't"
  and "is not" do not differ;
* **numbers**: each run of digits ("1,900" is "1" and "900"; any script's digits), and
  the number words of ``verifier.text.numbers.WRITTEN_NUMBER_WORDS`` (English, as the
  negation words are; the same tables the judge reads values from).

The texts compared are already folded (``verifier.binding.normalization.fold``):
lower case, apostrophes and dashes unified.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Final

from verifier.text.negations import NEGATIONS
from verifier.text.numbers import WRITTEN_NUMBER_WORDS

# Words with their inner apostrophes ("isn't" is one word); a hyphen splits ("non-toxic").
_WORDS: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_DIGITS: Final = re.compile(r"\d+")

_NOT: Final = "not"
_NEGATION_WORDS: Final = NEGATIONS | {"cannot", "non"}


def _signature(folded: str) -> tuple[Counter[str], Counter[str]]:
    negations: Counter[str] = Counter()
    numbers: Counter[str] = Counter(_DIGITS.findall(folded))
    for word in _WORDS.findall(folded):
        if word.endswith("n't") or word == "cannot":
            negations[_NOT] += 1
        elif word in _NEGATION_WORDS:
            negations[word] += 1
        elif word in WRITTEN_NUMBER_WORDS:
            numbers[word] += 1
    return negations, numbers


def changes_meaning(folded_quote: str, folded_span: str) -> bool:
    """Whether a fuzzy span differs from the quote in a negation or a number."""
    return _signature(folded_quote) != _signature(folded_span)
