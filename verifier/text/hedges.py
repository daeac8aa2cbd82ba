"""Hedges and absolutes: the words that weaken a statement and the words that make it
universal or certain.

``HEDGES`` are the hedges every reader counts; each reader's list adds named groups to
them, so that each keeps exactly the words it had:

* ``OVERCLAIM_HEDGES`` (``verifier.rag.overclaims``: the hedge an answer dropped): also
  seeming, potential and partial wording, ``SCOPE_HEDGES`` and correlation;
* ``PREVIEW_HEDGES`` (``verifier.scoring.dimension_heuristics``: scope calibration):
  also ``PROBABILITY_HEDGES``, ``SCOPE_HEDGES`` and "usually";
* ``UNCERTAINTY_CUES`` (``verifier.claim_worker.text``: an uncertain claim): also seeming,
  ``PROBABILITY_HEDGES``, hearsay and open-question words, no scope words.

``ABSOLUTES`` likewise: ``PREVIEW_UNIVERSALS`` adds verbs and adverbs of certainty,
``ABSOLUTE_QUANTIFIERS`` (the worker's) adds "only", "nothing", "totally", "forever".
``QUANTITY_HEDGES`` approximate a number ("about 1,200", the heuristic judge).

The heuristic judge grades hedges and absolutes on its own scale
(``verifier.judges.lexicon.SCOPE_MARKERS``, levels 1-5); the memory drift rubric matches
spoken commitments by phrase (``SPOKEN_HEDGE``, ``SPOKEN_CERTAINTY``: "I'll try",
"hope to", "for sure").
"""

from __future__ import annotations

import re
from typing import Final

HEDGES: Final = frozenset(
    "may might could likely possibly suggest suggests suggested appear appears".split()
)
PROBABILITY_HEDGES: Final = frozenset("perhaps probably".split())
SCOPE_HEDGES: Final = frozenset("some sometimes often".split())

OVERCLAIM_HEDGES: Final = (
    HEDGES
    | SCOPE_HEDGES
    | frozenset("seem seems potentially partly partially associated correlated".split())
)
PREVIEW_HEDGES: Final = HEDGES | PROBABILITY_HEDGES | SCOPE_HEDGES | {"usually"}
UNCERTAINTY_CUES: Final = (
    HEDGES
    | PROBABILITY_HEDGES
    | frozenset(
        """
        seem seems unlikely
        allegedly apparently reportedly rumored rumoured speculated estimated
        uncertain unclear unconfirmed
        """.split()
    )
)

ABSOLUTES: Final = frozenset(
    "all always every everyone everything never none nobody entirely completely".split()
)
PREVIEW_UNIVERSALS: Final = ABSOLUTES | frozenset(
    "certainly definitely undoubtedly proves proven".split()
)
ABSOLUTE_QUANTIFIERS: Final = ABSOLUTES | frozenset("only nothing totally forever".split())

QUANTITY_HEDGES: Final = frozenset("about approximately around roughly nearly almost circa".split())

SPOKEN_HEDGE: Final = re.compile(
    r"\b(?:try(?:ing)?|tried|attempt|might|maybe|perhaps|possibly|probably|hopefully"
    r"|i\s+hope|hope\s+to|i\s+think|i\s+believe|i\s+guess|i\s+suppose|should\s+be\s+able"
    r"|aim(?:ing)?\s+to|likely|not\s+sure|tentatively|kind\s+of|sort\s+of|roughly"
    r"|may(?!\s+\d)|could|seems?|appears?\s+to|as\s+far\s+as\s+i\s+know|i'?ll\s+see)\b",
    re.IGNORECASE,
)
SPOKEN_CERTAINTY: Final = re.compile(
    r"\b(?:definitely|certainly|surely|guarantee[ds]?|promise[ds]?|for\s+sure|absolutely"
    r"|without\s+fail|no\s+doubt|100\s*%|100\s+percent|undoubtedly|clearly|always|for\s+certain)\b",
    re.IGNORECASE,
)
