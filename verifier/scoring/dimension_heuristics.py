"""Offline per-dimension scores for one claim, for rule-set impact previews.

Per-dimension judge scores are not stored, so a rule-set preview re-scores every
claim with these deterministic heuristics from what *is* stored: the claim text,
the text of its bound span (``None`` when nothing is bound) and its latest verdict
(label and confidence). The numbers are estimates for comparing two rule sets on
the same claims, not judgements; the same inputs always give the same scores.

Each dimension, all scores in [0, 1]:

``evidence_grounding``
    The share of the claim's content words (lower-cased word tokens of three or
    more letters, stop words removed) that occur in the span. No span -> 0.
``logical_structure``
    From the verdict: entailed -> 0.5 + 0.5 × confidence; contradicted ->
    0.5 × (1 − confidence); abstained, coverage gap or no verdict -> 0.4. With
    no span the score is capped at 0.5 (nothing to reason from).
``counterargument_coverage``
    Qualifier words in the span (but, however, except, unless, although, only,
    may, might, …): the share of them the claim keeps. 1 when the span has none;
    0.5 with no span (unknown).
``scope_calibration``
    1 minus 0.25 for every universal or certainty word in the claim (all,
    always, never, every, proves, …) that the span does not use, and minus 0.15
    for every hedge in the span (some, may, suggests, …) that the claim drops;
    floored at 0. With no span: 0.5, less the same universal-word penalty.
``assumption_transparency``
    1 minus 0.34 for every number or capitalised name in the claim that the
    span does not contain (details brought in from elsewhere), floored at 0;
    0.5 with no span.
``internal_consistency``
    0.2 when exactly one of claim and span is negated (not, no, never, n't, …),
    else 1; a contradicted verdict caps it at 1 − confidence. With no span:
    0.5, or the contradicted cap when lower.
"""

from __future__ import annotations

from typing import Final

from verifier.scoring.rulesets import DIMENSIONS
from verifier.text.hedges import PREVIEW_HEDGES, PREVIEW_UNIVERSALS
from verifier.text.negations import has_negation
from verifier.text.stopwords import PREVIEW_STOPWORDS
from verifier.text.words import UNICODE_WORD_OR_NUMBER

QUALIFIERS: Final = frozenset(
    [
        "but",
        "however",
        "except",
        "unless",
        "although",
        "though",
        "only",
        "may",
        "might",
        "can",
        "could",
        "sometimes",
        "often",
        "usually",
        "rarely",
        "partly",
        "partially",
        "mostly",
        "generally",
        "typically",
    ]
)
UNIVERSAL_PENALTY: Final = 0.25
HEDGE_PENALTY: Final = 0.15
DETAIL_PENALTY: Final = 0.34
CONFLICT_SCORE: Final = 0.2
UNKNOWN: Final = 0.5
NO_VERDICT_STRUCTURE: Final = 0.4


def _words(text: str) -> list[str]:
    return [w.lower() for w in UNICODE_WORD_OR_NUMBER.findall(text)]


def _content(words: list[str]) -> set[str]:
    return {w for w in words if len(w) >= 3 and w not in PREVIEW_STOPWORDS and not w.isdigit()}


def _details(text: str) -> set[str]:
    """Numbers and capitalised words that are not sentence-initial."""
    found: set[str] = set()
    for match in UNICODE_WORD_OR_NUMBER.finditer(text):
        token = match.group(0)
        if token[0].isdigit():
            found.add(token)
            continue
        before = text[: match.start()].rstrip()
        sentence_start = not before or before[-1] in ".!?:;\"'“"
        if token[0].isupper() and not sentence_start:
            found.add(token.lower())
    return found


def _clamp(x: float) -> float:
    return max(0.0, min(1.0, x))


def dimension_scores(
    *,
    claim_text: str,
    span_text: str | None,
    verdict_label: str | None,
    verdict_confidence: float | None,
) -> dict[str, float]:
    """The six dimension scores (keys of ``DIMENSIONS``), each in [0, 1]."""
    confidence = _clamp(verdict_confidence) if verdict_confidence is not None else 0.0
    claim_words = _words(claim_text)
    claim_set = set(claim_words)
    claim_content = _content(claim_words)
    has_span = bool(span_text and span_text.strip())
    span_words = _words(span_text or "")
    span_set = set(span_words)

    if verdict_label == "entailed":
        structure = 0.5 + 0.5 * confidence
    elif verdict_label == "contradicted":
        structure = 0.5 * (1.0 - confidence)
    else:
        structure = NO_VERDICT_STRUCTURE
    contradiction_cap = 1.0 - confidence if verdict_label == "contradicted" else 1.0
    universal_missing = len((claim_set & PREVIEW_UNIVERSALS) - span_set)

    if not has_span:
        scores = {
            "logical_structure": min(structure, UNKNOWN),
            "evidence_grounding": 0.0,
            "counterargument_coverage": UNKNOWN,
            "scope_calibration": UNKNOWN - UNIVERSAL_PENALTY * universal_missing,
            "assumption_transparency": UNKNOWN,
            "internal_consistency": min(UNKNOWN, contradiction_cap),
        }
    else:
        grounding = len(claim_content & span_set) / len(claim_content) if claim_content else 0.0
        span_qualifiers = span_set & QUALIFIERS
        coverage = (
            len(span_qualifiers & claim_set) / len(span_qualifiers) if span_qualifiers else 1.0
        )
        hedges_dropped = len((span_set & PREVIEW_HEDGES) - claim_set)
        scope = 1.0 - UNIVERSAL_PENALTY * universal_missing - HEDGE_PENALTY * hedges_dropped
        span_detail_words = {w.lower() for w in span_words}
        new_details = {d for d in _details(claim_text) if d not in span_detail_words}
        assumption = 1.0 - DETAIL_PENALTY * len(new_details)
        consistency = (
            CONFLICT_SCORE if has_negation(claim_words) != has_negation(span_words) else 1.0
        )
        scores = {
            "logical_structure": structure,
            "evidence_grounding": grounding,
            "counterargument_coverage": coverage,
            "scope_calibration": scope,
            "assumption_transparency": assumption,
            "internal_consistency": min(consistency, contradiction_cap),
        }
    return {key: round(_clamp(scores[key]), 6) for key in DIMENSIONS}
