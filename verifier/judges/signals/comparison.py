"""``compare(claim, span)`` and the ``Comparison`` it returns.

The claim's content words and numbers aligned to the span, the coverage, and the
blockers of every checker of the package (``numbers``, ``entities``, ``scope``,
``polarity``), over the span parts that bear on the claim (``regions``, ``references``).
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from verifier.judges.lexicon import (
    ANTONYM_PREFIXES,
    ANTONYMS,
    REPORTING_LEMMAS,
    STANCE_LEMMAS,
    is_antonym,
)
from verifier.judges.signals import regions
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.entities import entity_blockers, kin_blockers
from verifier.judges.signals.numbers import multiplier_blockers, number_blockers, number_matches
from verifier.judges.signals.polarity import comparison, polarity_blockers
from verifier.judges.signals.references import (
    PRONOUN_SUBJECT_MAX_WORDS,
    SUBJECT_PRONOUNS,
    attributes,
    context_names,
    pronoun_subject,
)
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


def _stem_match(c: str, s: str) -> bool:
    """Claim concept ``c`` and span concept ``s`` share a stem ("regulat…")."""
    return (
        len(c) >= PREFIX_MATCH_MIN
        and s.startswith(c[:PREFIX_MATCH_MIN])
        and (c.startswith(s) or s.startswith(c))
    )


def stem_matches(c: str, concepts: AbstractSet[str]) -> frozenset[str]:
    """Of ``concepts``, those claim concept ``c`` matches by a shared stem (see
    ``word_in``): worked out once for a whole text, then passed for each part of it."""
    if len(c) < PREFIX_MATCH_MIN:
        return frozenset()
    return frozenset(s for s in concepts if _stem_match(c, s))


def word_in(
    claim: TextProfile, i: int, span: TextProfile, stems: AbstractSet[str] | None = None
) -> bool:
    """The span states claim word ``i`` itself: its concept or lemma, a part of a
    hyphenated span word, or a word sharing its stem (``stems``: ``stem_matches`` of
    the word over a superset of the span's concepts, when already worked out)."""
    c = claim.concepts[i]
    if c in span.concept_set or claim.lemmas[i] in span.lemma_set or c in span.part_concepts:
        return True
    if stems is not None:
        return not span.concept_set.isdisjoint(stems)
    return len(c) >= PREFIX_MATCH_MIN and any(_stem_match(c, s) for s in span.concept_set)


def _span_positions(claim: TextProfile, i: int, span: TextProfile) -> list[int]:
    """Span content positions that match claim word ``i`` (the rules of ``word_in``)."""
    c, lem = claim.concepts[i], claim.lemmas[i]
    out = [
        k
        for k in span.content
        if span.concepts[k] == c or span.lemmas[k] == lem or _stem_match(c, span.concepts[k])
    ]
    if not out and c in span.part_concepts:
        out.append(span.part_concepts[c])  # "confirmed" in "laboratory-confirmed"
    return out


def distinct_content(claim: TextProfile) -> list[int]:
    """The claim's content words, the first of each concept: what coverage counts."""
    seen: set[str] = set()
    out = []
    for i in claim.content:
        if claim.concepts[i] not in seen:
            seen.add(claim.concepts[i])
            out.append(i)
    return out


def direct_matches(claim: TextProfile, span: TextProfile) -> tuple[list[int], list[int]]:
    """The claim's content words (``distinct_content``) the span states itself
    (``word_in``), and the rest: the first part of ``compare``'s coverage."""
    matched: list[int] = []
    unmatched: list[int] = []
    for i in distinct_content(claim):
        (matched if word_in(claim, i, span) else unmatched).append(i)
    return matched, unmatched


def opposed_concepts(c: str, concepts: AbstractSet[str]) -> frozenset[str]:
    """Of ``concepts``, those that are antonyms of claim concept ``c`` by the antonym
    table or by a negating prefix on the span's side ("unused" for "used"; ``lemma``
    keeps a word's first letters, so such a word starts with the prefix)."""
    table = ANTONYMS.get(c, frozenset()) & concepts
    return table | {s for s in concepts if s.startswith(ANTONYM_PREFIXES) and is_antonym(c, s)}


def may_flip(
    claim: TextProfile, i: int, span: TextProfile, opposed: AbstractSet[str] | None = None
) -> bool:
    """Whether ``polarity`` could read claim word ``i`` as the antonym of a span word
    (never false when it does): a compound or a word with a negating prefix of its own
    always may; otherwise a span word must be one of its ``opposed_concepts``
    (``opposed``: worked out over a superset of the span's concepts)."""
    c = claim.concepts[i]
    if "-" in claim.lower[i] or c.startswith(ANTONYM_PREFIXES):
        return True
    if opposed is None:
        opposed = opposed_concepts(c, span.concept_set)
    return not span.concept_set.isdisjoint(opposed)


def coverage_ceiling(
    claim: TextProfile, span: TextProfile, matched: int, unmatched: Sequence[int], flips: int
) -> int:
    """The most claim words ``compare(claim, span)`` (no context) can count as covered,
    given the ``matched`` words the span states itself, the ``unmatched`` rest and how
    many of those ``may_flip``: a span subject pronoun may stand for up to
    ``PRONOUN_SUBJECT_MAX_WORDS`` of them, a shared reporting verb covers the claim's,
    and each antonym counts."""
    extra = flips
    if span.lower_set & SUBJECT_PRONOUNS.keys():
        extra += PRONOUN_SUBJECT_MAX_WORDS
    reporting = sum(1 for i in unmatched if claim.lemmas[i] in REPORTING_LEMMAS)
    if reporting and attributes(claim, REPORTING_LEMMAS) and attributes(span, REPORTING_LEMMAS):
        extra += reporting
    return matched + min(extra, len(unmatched))


def compare(claim_text: str, span_text: str, context_text: str = "") -> Comparison:
    """How far ``span_text`` covers ``claim_text`` and what blocks it being entailed.
    ``context_text`` (title and the sentence before the span) may only supply names."""
    claim = profile(claim_text)
    span = profile(span_text)
    matched, unmatched = direct_matches(claim, span)
    support: dict[Aligned, list[int]] = {("w", i): _span_positions(claim, i, span) for i in matched}
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
