"""Stopwords: one base list and the two lists derived from it, each difference named.

``STOPWORDS`` is the heuristic judge's list (also the relate stage's, the evidence
search's and the NLI features'). Two readers tuned shorter lists of their own before
this module existed; they are derived here so that each keeps exactly the words it had:

* ``RETRIEVAL_STOPWORDS`` (the claim-verification worker's lexical overlap and entity
  trimming): the judge's list less ``RETRIEVAL_CONTENT_WORDS``, plus
  ``RETRIEVAL_EXTRA_STOPWORDS`` (quantifiers, negations and a few modals, which the
  judge must read and retrieval does not);
* ``PREVIEW_STOPWORDS`` (the rule-set preview's grounding score,
  ``verifier.scoring.dimension_heuristics``): retrieval's list less
  ``PREVIEW_CONTENT_WORDS``, plus ``PREVIEW_EXTRA_STOPWORDS``, words of three or more
  letters only (the preview never counts shorter words).
"""

from __future__ import annotations

from typing import Final

STOPWORDS: Final = frozenset(
    """
    a an the and or but if then than that this these those there here
    of in on at to for from by with as into onto upon about over under between among
    through during before after above below up down out off again further once
    across against along around behind beside besides beyond per toward towards via
    within without like
    is are was were be been being am do does did doing have has had having
    it its it's itself they them their theirs themselves he him his himself
    she her hers herself we us our ours ourselves you your yours i me my mine one's
    who whom whose which what when where why how
    so such too very just also both either neither each other own same
    while whereas although though because since until unless whether
    thus hence therefore however moreover furthermore yet still even ever
    e.g i.e etc
    s t d ll m o re ve y
    """.split()
)
# Words that carry entailment-relevant meaning (negation, scope) are never stopwords of
# the judge, which reads them with signals of their own.
JUDGE_CONTENT_WORDS: Final = frozenset("no not nor never all some only most few many".split())

# Judge stopwords that retrieval counts as content: the less common prepositions,
# connectives, reflexive and possessive pronouns, and the fragments of contractions.
RETRIEVAL_CONTENT_WORDS: Final = frozenset(
    """
    upon among across against along around behind beside besides beyond per toward
    towards via within without like
    doing having it's itself theirs themselves himself hers herself us ours ourselves
    yours mine one's whose either neither
    whereas although though because since until unless whether
    thus hence therefore however moreover furthermore yet still even ever
    e.g i.e etc
    s t d ll m o re ve y
    """.split()
)
# Words retrieval drops that the judge keeps: quantifiers, negations, modals, "now".
RETRIEVAL_EXTRA_STOPWORDS: Final = frozenset(
    "all any few more most some no nor not only can should will now".split()
)
RETRIEVAL_STOPWORDS: Final = (STOPWORDS - RETRIEVAL_CONTENT_WORDS) | RETRIEVAL_EXTRA_STOPWORDS

# Retrieval stopwords the preview counts as content: prepositions, adverbs, some
# pronouns and determiners.
PREVIEW_CONTENT_WORDS: Final = frozenset(
    """
    about above after before below between during through under down off out
    again further once here how why now just too only
    him she you did does both few nor other own same
    """.split()
)
PREVIEW_EXTRA_STOPWORDS: Final = frozenset("could would shall it's whose".split())
PREVIEW_STOPWORDS: Final = frozenset(
    word
    for word in (RETRIEVAL_STOPWORDS - PREVIEW_CONTENT_WORDS) | PREVIEW_EXTRA_STOPWORDS
    if len(word) >= 3
)
