"""Read-time re-check of a stored binding: cheap, never rehashes the text."""

from __future__ import annotations

from rapidfuzz import fuzz

from verifier.binding.normalization import fold, normalize
from verifier.binding.spans import BoundSpan, MatchKind, RecheckStatus

# Fuzzy bindings need this rapidfuzz similarity (``fuzz.ratio`` of the normalized
# quote and span, scaled to [0, 1]). A quote with two word-level edits out of ~12
# words scores about 0.9; unrelated English-like text of the same length scores
# 0.4-0.7. 0.85 keeps small transcription slips and drops paraphrase.
DEFAULT_FUZZY_FLOOR = 0.85


def fuzzy_similarity(folded_quote: str, folded_span: str) -> float:
    """Similarity in [0, 1] of two already-folded strings."""
    return float(fuzz.ratio(folded_quote, folded_span)) / 100.0


def span_matches(
    quote: str, span_text: str, match: MatchKind, *, fuzzy_floor: float = DEFAULT_FUZZY_FLOOR
) -> bool:
    """Whether ``span_text`` still matches ``quote`` under the rule of ``match``.

    exact: equal; normalized: ``normalize`` equal; fuzzy: similarity >= floor.
    """
    if match == "exact":
        return span_text == quote
    if span_text == quote:
        return True
    if match == "normalized":
        return fold(span_text) == fold(quote) or normalize(span_text) == normalize(quote)
    return fuzzy_similarity(fold(quote), fold(span_text)) >= fuzzy_floor


def recheck(
    binding: BoundSpan, text: str, sha256: str, *, fuzzy_floor: float = DEFAULT_FUZZY_FLOOR
) -> RecheckStatus:
    """Re-check ``binding`` against the current ``text`` whose hash is ``sha256``.

    ``sha256`` is the stored hash of the current version; the text is not rehashed.
    """
    return recheck_span(
        binding,
        span_text=text[binding.start : binding.end],
        sha256=sha256,
        fuzzy_floor=fuzzy_floor,
    )


def recheck_span(
    binding: BoundSpan,
    *,
    span_text: str,
    sha256: str,
    fuzzy_floor: float = DEFAULT_FUZZY_FLOOR,
) -> RecheckStatus:
    """``recheck`` from the text at the binding's offsets only (``text[start:end]``), so a
    caller can cut the span out where the text is stored (the database) instead of
    loading a whole, possibly huge, source. With ``0 <= start < end``, the slice is
    ``end - start`` long exactly when ``end <= len(text)``: the same range rule."""
    if binding.source_hash != sha256:
        return "hash_mismatch"
    start, end = binding.start, binding.end
    if not 0 <= start < end or len(span_text) != end - start:
        return "offsets_out_of_range"
    if span_matches(binding.quote, span_text, binding.match, fuzzy_floor=fuzzy_floor):
        return "fresh"
    return "span_lost"
