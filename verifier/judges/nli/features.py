"""Pair features for the NLI judge's classifier: how well the span covers the claim.

From the encoder's word-piece vectors: each claim content piece's best cosine match in
the span (and in span + context), summarised as mean, minimum, low quantiles and the
share below fixed cut-offs, the reverse coverage, and the sentence cosine. From the
words: content-word overlap, numbers the premise lacks, negation parity, hedge and
certainty words on either side, capitalised names the premise lacks, and lengths.

Pure numpy + the word lists in ``verifier.judges.lexicon``; no Django imports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from verifier.judges.lexicon import SCOPE_MARKERS, lemma
from verifier.judges.nli.encoder import Encoded
from verifier.text.negations import NEGATION_WORDS
from verifier.text.stopwords import STOPWORDS
from verifier.text.words import LATIN_WORD_OR_NUMBER, MID_SENTENCE_NAME

FEATURE_NAMES: tuple[str, ...] = (
    "sentence_cosine",
    "align_mean",
    "align_min",
    "align_q10",
    "align_q25",
    "align_median",
    "share_below_50",
    "share_below_65",
    "share_below_80",
    "align_ctx_mean",
    "align_ctx_min",
    "ctx_share_below_65",
    "reverse_mean",
    "word_overlap",
    "word_overlap_ctx",
    "missing_words",
    "claim_numbers",
    "missing_numbers",
    "span_numbers",
    "claim_negations",
    "span_negations",
    "negation_mismatch",
    "claim_hedges",
    "span_hedges",
    "claim_absolutes",
    "span_absolutes",
    "hedge_dropped",
    "absolute_added",
    "missing_names",
    "missing_initial_word",
    "log_claim_words",
    "log_span_words",
    "length_ratio",
)
FEATURE_COUNT = len(FEATURE_NAMES)

_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_HEDGES = frozenset(m for m, (_, level) in SCOPE_MARKERS.items() if level <= 2 and " " not in m)
_ABSOLUTES = frozenset(m for m, (_, level) in SCOPE_MARKERS.items() if level >= 5 and " " not in m)


@dataclass(frozen=True)
class Alignment:
    """Each claim content piece and its best cosine in the span (for notes)."""

    pieces: tuple[str, ...]
    best: np.ndarray


def _content_mask(tokens: tuple[str, ...]) -> np.ndarray:
    mask = np.zeros(len(tokens), dtype=bool)
    for i, token in enumerate(tokens):
        word = token[2:] if token.startswith("##") else token
        mask[i] = any(ch.isalnum() for ch in word) and (
            token.startswith("##") or word.lower() not in STOPWORDS
        )
    return mask


def align(claim: Encoded, premise: Encoded) -> Alignment:
    mask = _content_mask(claim.tokens)
    if not mask.any():
        mask = np.ones(len(claim.tokens), dtype=bool)
    pieces = tuple(t for t, keep in zip(claim.tokens, mask, strict=True) if keep)
    if len(pieces) == 0 or premise.vectors.shape[0] == 0:
        return Alignment(pieces, np.zeros(len(pieces), dtype=np.float32))
    sims = claim.vectors[mask] @ premise.vectors.T
    return Alignment(pieces, sims.max(axis=1))


def _words(text: str) -> list[str]:
    return LATIN_WORD_OR_NUMBER.findall(text)


def _content_lemmas(words: list[str]) -> set[str]:
    return {lemma(w) for w in words if w.lower() not in STOPWORDS and not w[0].isdigit()}


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "").rstrip(".") for n in _NUMBER.findall(text)}


def _count(words: list[str], vocabulary: frozenset[str]) -> int:
    return sum(w.lower() in vocabulary for w in words)


def _initial_word_missing(claim_text: str, premise_lower: str) -> bool:
    """The claim's first word is capitalised, no stopword, and absent from the premise
    ("Sweden closed …" against a span about Norway): sentence-initial names escape
    ``_names``, which cannot tell them from any capitalised first word."""
    words = LATIN_WORD_OR_NUMBER.findall(claim_text)
    first = words[0] if words else ""
    return (
        bool(first[:1].isupper())
        and first.lower() not in STOPWORDS
        and (first.lower() not in premise_lower)
    )


def _names(text: str) -> set[str]:
    return {
        m.group(1).lower()
        for m in MID_SENTENCE_NAME.finditer(text)
        if m.group(1).lower() not in STOPWORDS
    }


def pair_features(
    *,
    claim_text: str,
    span_text: str,
    context_text: str,
    claim: Encoded,
    span: Encoded,
    with_context: Encoded | None,
) -> tuple[np.ndarray, Alignment]:
    """The feature vector (``FEATURE_NAMES`` order) and the claim-to-span alignment.
    ``with_context`` is the encoding of context + span (None when there is no context)."""
    to_span = align(claim, span)
    best = to_span.best
    to_both = align(claim, with_context).best if with_context is not None else best
    both = np.maximum(best, to_both) if len(to_both) == len(best) else best
    reverse = align(span, claim).best

    claim_words, span_words = _words(claim_text), _words(span_text)
    context_words = _words(context_text)
    claim_lemmas = _content_lemmas(claim_words)
    span_lemmas = _content_lemmas(span_words)
    premise_lemmas = span_lemmas | _content_lemmas(context_words)
    overlap = len(claim_lemmas & span_lemmas) / len(claim_lemmas) if claim_lemmas else 1.0
    overlap_ctx = len(claim_lemmas & premise_lemmas) / len(claim_lemmas) if claim_lemmas else 1.0

    claim_numbers = _numbers(claim_text)
    premise_numbers = _numbers(span_text) | _numbers(context_text)
    claim_neg = _count(claim_words, NEGATION_WORDS) + claim_text.lower().count("n't")
    span_neg = _count(span_words, NEGATION_WORDS) + span_text.lower().count("n't")
    claim_hedges, span_hedges = _count(claim_words, _HEDGES), _count(span_words, _HEDGES)
    claim_abs, span_abs = _count(claim_words, _ABSOLUTES), _count(span_words, _ABSOLUTES)
    premise_lower = (span_text + " " + context_text).lower()
    missing_names = sum(name not in premise_lower for name in _names(claim_text))

    def stat(values: np.ndarray, fn: str) -> float:
        if len(values) == 0:
            return 0.0
        if fn == "mean":
            return float(values.mean())
        if fn == "min":
            return float(values.min())
        return float(np.quantile(values, {"q10": 0.1, "q25": 0.25, "median": 0.5}[fn]))

    def share_below(values: np.ndarray, cut: float) -> float:
        return float((values < cut).mean()) if len(values) else 0.0

    n_claim, n_span = max(len(claim_words), 1), max(len(span_words), 1)
    values = [
        float(np.dot(claim.sentence, span.sentence)),
        stat(best, "mean"),
        stat(best, "min"),
        stat(best, "q10"),
        stat(best, "q25"),
        stat(best, "median"),
        share_below(best, 0.5),
        share_below(best, 0.65),
        share_below(best, 0.8),
        stat(both, "mean"),
        stat(both, "min"),
        share_below(both, 0.65),
        stat(reverse, "mean"),
        overlap,
        overlap_ctx,
        min(len(claim_lemmas - premise_lemmas), 6) / 6.0,
        min(len(claim_numbers), 4) / 4.0,
        min(len(claim_numbers - premise_numbers), 3) / 3.0,
        min(len(_numbers(span_text)), 4) / 4.0,
        min(claim_neg, 3) / 3.0,
        min(span_neg, 3) / 3.0,
        float((claim_neg % 2) != (span_neg % 2)),
        min(claim_hedges, 3) / 3.0,
        min(span_hedges, 3) / 3.0,
        min(claim_abs, 3) / 3.0,
        min(span_abs, 3) / 3.0,
        float(span_hedges > 0 and claim_hedges < span_hedges),
        float(claim_abs > span_abs),
        min(missing_names, 3) / 3.0,
        float(_initial_word_missing(claim_text, premise_lower)),
        math.log1p(n_claim) / 5.0,
        math.log1p(n_span) / 6.0,
        min(n_claim / n_span, 3.0) / 3.0,
    ]
    return np.asarray(values, dtype=np.float32), to_span
