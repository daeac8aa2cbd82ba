"""Abbreviations: the words after which a "." does not end a sentence.

One list for both sentence splitters (``verifier.text.sentences``), with what only one
of them knows named apart:

* ``ABBREVIATIONS`` — both: titles, ranks, references, Latin ("Dr.", "Fig.", "e.g.");
* ``CLOSING_ABBREVIATIONS`` — both, but they may also close a sentence ("… Ltd.",
  "etc."): ``sentence_spans`` ends one after them only before a capital letter, the
  extractor's ``block_sentence_spans`` never does;
* ``SENTENCE_SPAN_ONLY_ABBREVIATIONS`` (and "bros" among the closing ones) — only
  ``sentence_spans``: more references and Latin forms without their dots;
* ``EXTRACTOR_ONLY_ABBREVIATIONS`` — only the extractor: months, "U.S."/"U.K." (which
  ``sentence_spans`` treats as any dotted acronym: closing), units and editors.

Each splitter also treats a single letter as an initial ("J. Smith"): ``sentence_spans``
a capital one, the extractor any letter. Abbreviations are lower-case, without their
final ".".
"""

from __future__ import annotations

from typing import Final

ABBREVIATIONS: Final = frozenset(
    """
    mr mrs ms dr prof rev st mt gen col lt sgt capt
    e.g i.e cf vs fig no vol pp approx dept
    """.split()
)
CLOSING_ABBREVIATIONS: Final = frozenset("etc inc ltd co corp al jr sr".split())

SENTENCE_SPAN_ONLY_ABBREVIATIONS: Final = frozenset(
    "eg ie viz mx hon figs eq eqs nos vols ch sec ca resp".split()
)
EXTRACTOR_ONLY_ABBREVIATIONS: Final = frozenset(
    """
    jan feb mar apr jun jul aug sep sept oct nov dec
    u.s u.k est gov ft ed eds p
    """.split()
)

# What each splitter reads.
SENTENCE_SPAN_ABBREVIATIONS: Final = ABBREVIATIONS | SENTENCE_SPAN_ONLY_ABBREVIATIONS
SENTENCE_SPAN_CLOSING_ABBREVIATIONS: Final = CLOSING_ABBREVIATIONS | {"bros"}
EXTRACTOR_ABBREVIATIONS: Final = (
    ABBREVIATIONS | CLOSING_ABBREVIATIONS | EXTRACTOR_ONLY_ABBREVIATIONS
)
