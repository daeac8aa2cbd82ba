"""Which parts of a span bear on the claim.

The clauses that state something of it (``relevant_clauses``), the short clauses that
frame them (``frames``), the span's scope markers in force (``markers_in_force``) and the
region whose negations and antonyms count (``claim_region``).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Final

from verifier.judges.lexicon import ATTRIBUTION_LEMMAS, PLAIN_LEVEL, lemma
from verifier.judges.signals.numbers import claim_states_hedged_number
from verifier.judges.signals.text_profile import COORDINATORS, Aligned, ScopeMarker, TextProfile
from verifier.text.negations import NEGATION_WORDS
from verifier.text.stopwords import STOPWORDS

MODAL_AUXILIARIES = frozenset({"may", "might", "could", "can", "would", "should", "will", "must"})
MODAL_REACH = 3  # content words after a modal that it hedges
REGION_BEFORE = 4  # tokens before the first aligned word that still govern it (negation)
REGION_AFTER = 2
# Clause structure of a span. A span clause (split at sentence ends, commas, semicolons,
# colons, dashes and brackets) is *relevant* when a greedy cover of the claim's aligned
# words picks it; hedges and negations in other clauses scope other propositions
# ("…1999, and some later surveys found…"). A short clause next to a relevant one in the
# same sentence is a *frame* that scopes the whole sentence ("Sleep, some argue, helps";
# "It is not true, as claimed, that…"): at most FRAME_MAX_CONTENT content words.
FRAME_MAX_CONTENT = 2
# A concessive clause qualifies its whole sentence ("X, although this is debated"):
# its evidence/consensus/modality hedges stay in force even when it shares no word with
# the claim. Quantifier and frequency words there scope that clause's own nouns.
CONCESSIVE_OPENERS = frozenset(
    {"although", "though", "but", "however", "yet", "whereas", "while", "albeit", "even"}
)
SENTENCE_WIDE_DIMENSIONS = frozenset({"evidence", "consensus", "modality"})
# "many/most/several/mainly" (quantifier levels 2-3) scope the words that follow them:
# they hedge the claim only when one of the next QUANTIFIED_WORDS content words is one
# the claim states ("most of the Icelandic sagas"), not when they count something the
# claim never mentions ("in many laboratory studies, people who sleep…"). Level-1
# quantifiers (some, few, partly) always hedge.
QUANTIFIED_WORDS = 2


def relevant_clauses(span: TextProfile, support: Mapping[Aligned, list[int]]) -> set[int]:
    """Greedy cover: clauses that state something of the claim nothing else already does.

    ``support`` maps each aligned claim item (word or number) to its span positions."""
    by_clause: dict[int, set[Aligned]] = {}
    for item, positions in support.items():
        for k in positions:
            by_clause.setdefault(span.clause[k], set()).add(item)
    chosen: set[int] = set()
    covered: set[Aligned] = set()
    while True:
        best = max(
            sorted(by_clause),
            key=lambda c: len(by_clause[c] - covered),
            default=None,
        )
        if best is None or not by_clause[best] - covered:
            return chosen
        chosen.add(best)
        covered |= by_clause[best]


def _clause_positions(span: TextProfile) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for k, c in enumerate(span.clause):
        out.setdefault(c, []).append(k)
    return out


def frames(span: TextProfile, relevant: set[int]) -> set[int]:
    """Short clauses in a sentence with a relevant clause: they scope the whole sentence."""
    sentences = {span.sentence[k] for k, c in enumerate(span.clause) if c in relevant}
    marker_positions = {m.position + j for m in span.scope for j in range(len(m.phrase.split()))}
    content_by_clause: dict[int, int] = {}
    for k in span.content:
        if k not in marker_positions:
            content_by_clause[span.clause[k]] = content_by_clause.get(span.clause[k], 0) + 1
    out = set()
    for c, positions in _clause_positions(span).items():
        if c in relevant or span.sentence[positions[0]] not in sentences:
            continue
        if span.lower[positions[0]] in COORDINATORS:
            continue
        if content_by_clause.get(c, 0) <= FRAME_MAX_CONTENT:
            out.add(c)
    return out


def _concessive(span: TextProfile, clause: int) -> bool:
    first = next(k for k, c in enumerate(span.clause) if c == clause)
    return span.lower[first] in CONCESSIVE_OPENERS


def _quantifies_claim(span: TextProfile, m: ScopeMarker, aligned: set[int]) -> bool:
    """A level 2-3 quantifier hedges the claim only if it counts a word the claim has."""
    end = m.position + len(m.phrase.split())
    following = [k for k in span.content if k >= end and span.clause[k] == span.clause[end - 1]]
    following = following[:QUANTIFIED_WORDS]
    return not following or any(k in aligned for k in following)


def markers_in_force(
    claim: TextProfile,
    span: TextProfile,
    relevant: set[int],
    frames: set[int],
    aligned: set[int],
    attributed: bool = False,
) -> list[ScopeMarker]:
    """The span's scope markers that bear on the claim. ``attributed``: the claim
    attributes its proposition itself ("Kant held that …"), so the span's attribution
    verbs ("proposed", "argued") are not hedges it dropped. An approximator bears on it
    only where the claim states the number it hedges."""
    scope = [
        m
        for m in span.scope
        if not (attributed and m.dimension == "evidence" and lemma(m.phrase) in ATTRIBUTION_LEMMAS)
        and (m.dimension != "quantity" or claim_states_hedged_number(claim, span, m))
    ]
    if not relevant:
        return scope
    sentences = {span.sentence[k] for k, c in enumerate(span.clause) if c in relevant}
    out = []
    for m in scope:
        clause = span.clause[m.position]
        concession = (
            m.dimension in SENTENCE_WIDE_DIMENSIONS
            and span.sentence[m.position] in sentences
            and _concessive(span, clause)
        )
        if not (clause in relevant or clause in frames or concession):
            continue
        counts_other = m.dimension == "quantifier" and 1 < m.level < PLAIN_LEVEL
        # in a short neighbouring clause any quantifier counts that clause's own nouns
        # ("Some critics disliked it, but the film won …")
        in_frame_only = m.dimension == "quantifier" and clause not in relevant
        if (counts_other or in_frame_only) and not _quantifies_claim(span, m, aligned):
            continue
        if m.phrase in MODAL_AUXILIARIES and _governs_unsaid(span, m.position, aligned):
            continue
        out.append(m)
    return out


def _governs_unsaid(span: TextProfile, k: int, aligned: AbstractSet[int]) -> bool:
    """Whether the modal at ``k`` hedges only words the claim does not state: "should
    not be paying a premium of over six thousand pounds" hedges nothing of "Cllr
    Fenwick voted against". Its reach is the first ``MODAL_REACH`` content words after it
    in its clause ("not", "be", "have" passed over); a claim word among them, or a clause
    that ends first, keeps the hedge."""
    seen = 0
    for j in range(k + 1, len(span.lower)):
        if span.clause[j] != span.clause[k] or j in aligned:
            return False
        if span.lower[j] in STOPWORDS or span.lower[j] in NEGATION_WORDS:
            continue
        seen += 1
        if seen == MODAL_REACH:
            return True
    return False


# What "none of …" / "neither of …" picks out when it opens a clause about a group.
PARTITIVE_HEADS: Final = frozenset({"which", "whom", "them", "these", "those", "us"})


def claim_region(
    span: TextProfile, relevant: set[int], frames: set[int], aligned: set[int]
) -> list[int]:
    """Span positions whose negations and antonyms bear on the claim: the relevant
    clauses around their aligned words (a few tokens before the first, after the last),
    plus the frames of their sentences. Nothing aligned: the whole span."""
    if not relevant:
        return list(range(len(span.lower)))
    region: set[int] = set()
    content = set(span.content)
    for c, positions in _clause_positions(span).items():
        if c in frames:
            region.update(positions)
        elif c in relevant:
            hits = [k for k in positions if k in aligned]
            lo = max(positions[0], min(hits) - REGION_BEFORE)
            # REGION_AFTER tokens after the last aligned word, or its REGION_AFTER content
            # words when articles and prepositions come first ("ended 2025 with a surplus")
            after = [k for k in positions if k > max(hits) and k in content][:REGION_AFTER]
            hi = min(positions[-1], max([max(hits) + REGION_AFTER, *after]))
            region.update(range(lo, hi + 1))
            # "none of which the investigators judged to be related": a negation that
            # picks out the members of a group scopes the whole clause after it.
            region.update(
                k
                for k in positions
                if k < lo
                and k in span.negations
                and tuple(span.lower[k + 1 : k + 2]) == ("of",)
                and k + 2 < len(span.lower)
                and span.lower[k + 2] in PARTITIVE_HEADS
            )
    return sorted(region)
