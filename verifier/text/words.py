"""Word patterns: how each reader of text cuts it into words and names, written once.

Readers tuned their own patterns before this module existed, and a judge's or a
scorer's numbers depend on exactly what it counts as a word, so each pattern is kept as
it was and named for what it matches; its readers are listed beside it. A reader that
needs a new way of cutting text adds it here, next to the others, where the differences
are visible; two readers that can share one use the same name.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# --- words -------------------------------------------------------------------------

# Runs of word characters (letters, digits, underscore, any script): the binder's word
# locator (``verifier.binding.locate``) and the NLI development data's word overlap
# (``verifier.judges.nli.devdata``).
WORD_RUN: Final = re.compile(r"\w+")

# Runs of anything but whitespace: the binder's span edges (``verifier.binding.locate``)
# and the NLI synthetic data's word swaps (``verifier.judges.nli.synthetic``).
NON_SPACE_RUN: Final = re.compile(r"\S+")

# Word runs and single marks (punctuation): the tiny cross-encoder's tokenizer
# (``verifier.judges.cross_encoder.tiny_model``).
WORD_RUN_OR_MARK: Final = re.compile(r"\w+|[^\w\s]")

# Word runs, marks and whitespace runs, which together cover the whole text: the
# source highlighter (``audit.highlighting``).
WORD_MARK_OR_SPACE: Final = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)

# The heuristic judge's tokens: words of letters in any script with inner apostrophes,
# dots and hyphens ("U.S.", "well-known", "café", "Zoë"), numbers with separators, and
# the signs %, $, €, £, ° (``verifier.judges.signals``; reading 6 on: before it, only
# A-Z letters were read, and "café" was the word "caf").
JUDGE_TOKEN: Final = re.compile(
    r"[^\W\d_](?:[^\W_]|['’.\-])*[^\W_]|[^\W\d_]|\d[\d,.]*\d|\d|[%$€£°]"
)

# Latin words with inner apostrophes and hyphens, and numbers with separators: the NLI
# features (``verifier.judges.nli.features``) and the evidence search's lexical overlap
# (``verifier.services.evidence_search``).
LATIN_WORD_OR_NUMBER: Final = re.compile(r"[A-Za-z][A-Za-z'’\-]*[A-Za-z]|[A-Za-z]|\d[\d,.]*\d|\d")

# Latin words, a trailing hyphen or apostrophe kept, and figures with a percent sign:
# the claim-verification worker's text features (``verifier.claim_worker.text``).
LATIN_WORD_OR_FIGURE: Final = re.compile(r"[A-Za-z][A-Za-z'’\-]*|\d+(?:[.,]\d+)*%?")

# Latin letters with one apostrophe ending ("don't", "agent's"): the RAG audit's
# overclaim check (``verifier.rag.overclaims``).
LATIN_WORD: Final = re.compile(r"[A-Za-z]+(?:['’][a-z]+)?")

# Words and figures as a RAG answer's claims carry them ("~40%", "3.5", "co-founded"):
# the answer decomposer (``verifier.rag.decompose``).
CLAIM_TOKEN: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-%~.]*[A-Za-z0-9%]|[A-Za-z0-9~%]")

# Latin words and numbers, a contraction kept whole and a clock time ("10:30") one token:
# the memory verifier's wording (``verifier.memory.wording``).
MEMORY_TOKEN: Final = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)?(?::[0-9]{2})?")

# Letters and digits of any script, with one inner apostrophe: the relate stage
# (``verifier.pipeline.relating``).
UNICODE_WORD: Final = re.compile(r"[^\W_]+(?:'[^\W_]+)?", re.UNICODE)

# Letters of any script with one inner apostrophe, or numbers with separators: the
# rule-set preview's scores (``verifier.scoring.dimension_heuristics``).
UNICODE_WORD_OR_NUMBER: Final = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+(?:[.,]\d+)*", re.UNICODE)

# Letters and digits of any script, three or more: the retrieve's lexical terms
# (``verifier.selectors.retrieval``).
RETRIEVAL_TERM: Final = re.compile(r"[^\W_]{3,}", re.UNICODE)

# A run of letters of any script, inner apostrophes kept ("don't"); numbers are no words:
# the sentence extractor's word count (``verifier.extractors.sentence``).
LETTER_WORD: Final = re.compile(r"[^\W\d_](?:[^\W\d_]|['’])*")

# One letter of any script: whether a sentence holds words at all
# (``verifier.services.sentence_index``).
LETTER: Final = re.compile(r"[^\W\d_]")

# --- names -------------------------------------------------------------------------

# A run of one or more capitalised words ("Norway", "Halden Point"): the relate stage's
# entities (``verifier.pipeline.relating``).
CAPITALISED_RUN: Final = re.compile(r"\b[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)*")

# Two or more capitalised words ("Marie Curie"): the RAG audit's entities
# (``verifier.rag.entities``).
MULTIWORD_NAME: Final = re.compile(r"\b[A-Z][\w'’\-]*(?:\s+[A-Z][\w'’\-]*)+")

# Capitalised words, one "of" or "the" between two of them ("Bank of England"): the
# claim-verification worker's names (``verifier.claim_worker.text``).
NAME_WITH_CONNECTORS: Final = re.compile(r"\b[A-Z][\w'’\-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'’\-]*)*")

# A capitalised word that does not start a sentence: the NLI features' names
# (``verifier.judges.nli.features``).
MID_SENTENCE_NAME: Final = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+)")


def strip_diacritics(word: str) -> str:
    """The word with the marks on its letters taken off ("Zoë" → "Zoe", "São" → "Sao"):
    compatibility decomposition, combining marks dropped. Letters without a decomposition
    ("ß", "ø", Greek, CJK) are kept as they are."""
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch)
    )
