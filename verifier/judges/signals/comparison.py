"""``compare(claim, span)`` and the ``Comparison`` it returns.

The claim's content words and numbers aligned to the span, the coverage, and the
blockers of every checker of the package (``numbers``, ``entities``, ``scope``,
``polarity``), over the span parts that bear on the claim (``regions``, ``references``).
"""

from __future__ import annotations

from dataclasses import dataclass

from verifier.judges.lexicon import REPORTING_LEMMAS, STANCE_LEMMAS
from verifier.judges.signals import regions
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.entities import entity_blockers, kin_blockers
from verifier.judges.signals.numbers import multiplier_blockers, number_blockers, number_matches
from verifier.judges.signals.polarity import comparison, polarity_blockers
from verifier.judges.signals.references import attributes, context_names, pronoun_subject
from verifier.judges.signals.regions import claim_region, markers_in_force, relevant_clauses
from verifier.judges.signals.scope import (
    future_blockers,
    question_blockers,
    scope_blockers,
    share_quantifier_blockers,
    superlative_blockers,
)
from verifier.judges.signals.text_profile import Aligned, TextProfile, profile

PREFIX_MATCH_MIN = 5  # shared prefix length for a stem-tolerant word match


@dataclass(frozen=True)
class Comparison:
    coverage: float
    content_words: int
    uncovered: tuple[str, ...]
    blockers: tuple[Blocker, ...]
    resolved: str = ""  # "'It' read as 'Giant kelp'" when a span pronoun stood for the subject


def _word_in(claim: TextProfile, i: int, span: TextProfile) -> bool:
    c = claim.concepts[i]
    if c in span.concept_set or claim.lemmas[i] in span.lemma_set or c in span.part_concepts:
        return True
    if len(c) >= PREFIX_MATCH_MIN:
        stem = c[:PREFIX_MATCH_MIN]
        return any(
            s.startswith(stem) and (c.startswith(s) or s.startswith(c)) for s in span.concept_set
        )
    return False


def _span_positions(claim: TextProfile, i: int, span: TextProfile) -> list[int]:
    """Span content positions that match claim word ``i`` (the rules of ``_word_in``)."""
    c, lem = claim.concepts[i], claim.lemmas[i]
    stem = c[:PREFIX_MATCH_MIN] if len(c) >= PREFIX_MATCH_MIN else None
    out = []
    for k in span.content:
        s = span.concepts[k]
        if (
            s == c
            or span.lemmas[k] == lem
            or (stem and s.startswith(stem) and (c.startswith(s) or s.startswith(c)))
        ):
            out.append(k)
    if not out and c in span.part_concepts:
        out.append(span.part_concepts[c])  # "confirmed" in "laboratory-confirmed"
    return out


def compare(claim_text: str, span_text: str, context_text: str = "") -> Comparison:
    """How far ``span_text`` covers ``claim_text`` and what blocks it being entailed.
    ``context_text`` (title and the sentence before the span) may only supply names."""
    claim = profile(claim_text)
    span = profile(span_text)
    matched: list[int] = []
    unmatched: list[int] = []
    support: dict[Aligned, list[int]] = {}
    seen_concepts: set[str] = set()
    for i in claim.content:
        if claim.concepts[i] in seen_concepts:
            continue
        seen_concepts.add(claim.concepts[i])
        if _word_in(claim, i, span):
            matched.append(i)
            support[("w", i)] = _span_positions(claim, i, span)
        else:
            unmatched.append(i)
    for n, c in enumerate(claim.numbers):
        hits = [s.position for s in span.numbers if number_matches(c, s)]
        if hits:
            support[("n", n)] = hits
    resolved_subject, resolved_note = pronoun_subject(claim, span, matched, support)
    if resolved_subject:
        matched.extend(i for i in unmatched if i in resolved_subject)
        unmatched = [i for i in unmatched if i not in resolved_subject]
    named = context_names(claim, context_text)
    from_context = [i for i in unmatched if claim.lower[i] in named]
    if from_context:
        matched.extend(from_context)
        unmatched = [i for i in unmatched if i not in from_context]
        words = " ".join(claim.tokens[i] for i in from_context)
        resolved_note = "; ".join(n for n in (resolved_note, f"'{words}' from the context") if n)
    attributed = attributes(claim) or attributes(claim, STANCE_LEMMAS)
    if attributes(claim, REPORTING_LEMMAS) and attributes(span, REPORTING_LEMMAS):
        reporting = [i for i in unmatched if claim.lemmas[i] in REPORTING_LEMMAS]
        matched.extend(reporting)
        unmatched = [i for i in unmatched if i not in reporting]
    aligned = {k for positions in support.values() for k in positions}
    relevant = relevant_clauses(span, support)
    frames = regions.frames(span, relevant)
    region = claim_region(span, relevant, frames, aligned)
    markers = markers_in_force(claim, span, relevant, frames, aligned, attributed)
    relation, comparative = comparison(claim, span)
    claim_of: dict[int, list[int]] = {}  # span position -> the claim words aligned to it
    for (kind, index), positions in support.items():
        at = claim.numbers[index].position if kind == "n" else index
        for k in positions:
            claim_of.setdefault(k, []).append(at)
    polarity, flipped = polarity_blockers(
        claim,
        span,
        region,
        unmatched,
        aligned,
        mirrored=comparative if relation == "mirrored" else frozenset(),
        relevant=relevant,
        claim_of=claim_of,
    )
    if relation == "reversed":
        words = " ".join(claim.tokens[i] for i in sorted(comparative))
        note = f"comparison reversed: the span compares the other way round ('{words}')"
        polarity.append(Blocker("antonym", note, True))
    total = len(matched) + len(unmatched)
    # Antonyms are aligned words with opposite meaning: covered, and vetoed by polarity.
    coverage = (len(matched) + flipped) / total if total else 0.0
    resolved_words = frozenset(claim.lower[i] for i in resolved_subject) | named
    blockers = [
        *question_blockers(span_text, span),
        *polarity,
        *number_blockers(claim, span),
        *multiplier_blockers(claim, span),
        *kin_blockers(claim, span),
        *scope_blockers(claim, markers),
        *future_blockers(claim, span, claim_of),
        *share_quantifier_blockers(claim, span, markers),
        *superlative_blockers(claim, span),
        *entity_blockers(
            claim,
            span,
            resolved_words,
            profile(context_text).entities if context_text.strip() else (),
        ),
    ]
    return Comparison(
        coverage=coverage,
        content_words=total,
        uncovered=tuple(claim.tokens[i] for i in unmatched),
        blockers=tuple(blockers),
        resolved=resolved_note,
    )
