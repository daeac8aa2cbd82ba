"""Layer 1: deterministic, model-free evidence binding (pure Python, no Django).

A quote binds to half-open code-point offsets ``[start, end)`` of the ORIGINAL text
of one source version, by the first stage that finds it: ``exact`` -> ``normalized``
-> ``fuzzy``, on word boundaries only (``boundaries``); a fuzzy span that changes a
negation or a number is refused (``fuzzy_guard``). A stored binding is re-checked
cheaply at read time with ``recheck``.
"""

from verifier.binding.boundaries import on_word_boundaries
from verifier.binding.locate import FUZZY_MIN_TOKENS, OCCURRENCES_COUNTED, bind, occurrences
from verifier.binding.normalization import normalize
from verifier.binding.recheck import DEFAULT_FUZZY_FLOOR, recheck, recheck_span, span_matches
from verifier.binding.source_index import (
    INDEX_CACHE_SIZE,
    SourceIndex,
    clear_index_cache,
    sha256_hex,
    source_index,
)
from verifier.binding.spans import Binding, BoundSpan, MatchKind, RecheckStatus
from verifier.binding.validation import BindingInputError, validate_quote, validate_text

__all__ = [
    "DEFAULT_FUZZY_FLOOR",
    "FUZZY_MIN_TOKENS",
    "INDEX_CACHE_SIZE",
    "OCCURRENCES_COUNTED",
    "Binding",
    "BindingInputError",
    "BoundSpan",
    "MatchKind",
    "RecheckStatus",
    "SourceIndex",
    "bind",
    "clear_index_cache",
    "normalize",
    "occurrences",
    "on_word_boundaries",
    "recheck",
    "recheck_span",
    "sha256_hex",
    "source_index",
    "span_matches",
    "validate_quote",
    "validate_text",
]
