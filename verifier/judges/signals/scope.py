"""Scope and modality: ``scope_blockers`` (a hedge, quantifier or modal the claim
strengthens or drops), ``future_blockers`` (the claim reports as done what the span says
is still to come), ``share_quantifier_blockers`` ("most" against the span's own
percentage), ``superlative_blockers`` and ``question_blockers`` (a span that only asks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from verifier.judges.lexicon import IRREGULAR_LEMMAS, PLAIN_LEVEL, STRONG_LEVEL
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.numbers import fmt
from verifier.judges.signals.text_profile import NumberMention, ScopeMarker, TextProfile

NOT_SUPERLATIVES = frozenset(
    [
        "forest",
        "interest",
        "harvest",
        "request",
        "protest",
        "suggest",
        "honest",
        "modest",
        "contest",
        "manifest",
        "arrest",
        "conquest",
        "digest",
        "invest",
        "behest",
        "earnest",
    ]
)


def scope_blockers(claim: TextProfile, span_markers: Sequence[ScopeMarker]) -> list[Blocker]:
    """``span_markers``: the span's scope markers that govern the claim's region."""
    out: list[Blocker] = []
    claim_by_dim: dict[str, list[ScopeMarker]] = {}
    for m in claim.scope:
        claim_by_dim.setdefault(m.dimension, []).append(m)
    span_by_dim: dict[str, list[ScopeMarker]] = {}
    for m in span_markers:
        span_by_dim.setdefault(m.dimension, []).append(m)
    span_phrases = {m.phrase for m in span_markers}
    # Hedges the claim introduced itself (a paraphrase may move a hedge to another word).
    own_hedges = [m for m in claim.scope if m.level < PLAIN_LEVEL and m.phrase not in span_phrases]
    for dim, in_dim in span_by_dim.items():
        # A span may hedge two propositions at two levels ("is thought to have been
        # altered, so its sound may differ"): each claim marker needs one as strong in
        # the span, and the span's weakest hedge needs one as weak in the claim.
        weakest = min(in_dim, key=lambda m: m.level)
        span_strongest = max(in_dim, key=lambda m: m.level)
        claim_markers = claim_by_dim.get(dim, [])
        if claim_markers:
            strongest = max(claim_markers, key=lambda m: m.level)
            claim_weakest = min(claim_markers, key=lambda m: m.level)
            if strongest.level > span_strongest.level:
                out.append(
                    Blocker(
                        "scope",
                        f"scope: claim says '{strongest.phrase}', "
                        f"span says '{span_strongest.phrase}'",
                        False,
                    )
                )
            elif claim_weakest.level > weakest.level and not any(
                h.level <= weakest.level for h in own_hedges
            ):
                out.append(
                    Blocker(
                        "scope",
                        f"scope: claim says '{claim_weakest.phrase}', span says '{weakest.phrase}'",
                        False,
                    )
                )
        elif weakest.level < PLAIN_LEVEL and not any(h.level <= weakest.level for h in own_hedges):
            out.append(
                Blocker("scope", f"scope: span hedges '{weakest.phrase}', claim drops it", False)
            )
    for dim, claim_markers in claim_by_dim.items():
        if dim in span_by_dim:
            continue
        strong = [m for m in claim_markers if m.level >= STRONG_LEVEL]
        if strong:
            out.append(
                Blocker("scope", f"scope: claim says '{strong[0].phrase}', span does not", False)
            )
    return out


# What makes a verb of the span future ("will reopen", "is to be closed", "is set to
# open"): an auxiliary, or a form of "be" with one of these before "to".
FUTURE_AUXILIARIES: Final = frozenset({"will", "shall"})
FUTURE_BEFORE_TO: Final = frozenset({"set", "due", "scheduled", "slated", "poised", "going"})
_BE: Final = frozenset({"is", "are", "was", "were", "be"})
# Between a future auxiliary and its verb: "will not", "will soon be", "will have".
_BETWEEN: Final = frozenset({"be", "have", "been", "not", "also", "then", "soon", "still", "now"})
# "was to be a hub": what follows is no verb.
_NOT_VERBS: Final = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "his", "her", "its", "their", "our"}
)
# A claim with one of these (or a future verb of its own) speaks of the future or of
# what may be: it is not a report of what happened.
_MODALS: Final = frozenset({"would", "could", "may", "might", "can", "should", "must"})


def _future_verbs(span: TextProfile) -> list[tuple[int, str]]:
    """(position of the verb, the words from the future marker to the verb) for each
    future verb of the span."""
    out = []
    lower = span.lower
    for k, word in enumerate(lower):
        if word in FUTURE_AUXILIARIES:
            start = k
        elif word == "to" and k >= 1 and lower[k - 1] in _BE:
            start = k - 1
        elif word == "to" and k >= 2 and lower[k - 1] in FUTURE_BEFORE_TO and lower[k - 2] in _BE:
            start = k - 2
        else:
            continue
        v = k + 1
        while v < len(lower) and (lower[v] in _BETWEEN or lower[v].endswith("ly")):
            v += 1
        if v < len(lower) and lower[v].isalpha() and lower[v] not in _NOT_VERBS:
            out.append((v, " ".join(span.tokens[start : v + 1])))
    return out


def _reported_as_done(claim: TextProfile, i: int) -> bool:
    """Whether the claim's word ``i`` is a verb in the past: "reopened", "was closed",
    "has been sold", "did close"."""
    word = claim.lower[i]
    if i >= 1 and claim.lower[i - 1] == "did":
        return True
    return word.endswith("ed") or (word in IRREGULAR_LEMMAS and IRREGULAR_LEMMAS[word] != word)


def future_blockers(
    claim: TextProfile, span: TextProfile, claim_of: Mapping[int, Sequence[int]]
) -> list[Blocker]:
    """The claim reports as done ("the museum has reopened") what the span says is still to
    come ("the museum will reopen"): the claim's word aligned to a future verb of the span
    is in the past, and nothing in the claim speaks of the future or of what may be.
    ``claim_of``: span position -> the claim positions aligned to it."""
    modal = any(
        word in _MODALS and not (claim.tokens[j] == "May" and j > 0)  # the month
        for j, word in enumerate(claim.lower)
    )
    if modal or _future_verbs(claim):
        return []
    for v, phrase in _future_verbs(span):
        # aligned to the verb, or the same verb (a reporting verb is matched unaligned)
        aligned = claim_of.get(v) or [
            i for i, lemma in enumerate(claim.lemmas) if lemma == span.lemmas[v]
        ]
        for i in aligned:
            if 0 <= i < len(claim.lower) and _reported_as_done(claim, i):
                note = (
                    f"tense: span says '{phrase}' (still to come), claim says '{claim.tokens[i]}'"
                )
                return [Blocker("scope", note, False)]
    return []


# Claim quantifiers that state a share, and the shares (as fractions) they admit.
SHARE_QUANTIFIERS: Final[Mapping[str, tuple[float, float]]] = {
    "most": (0.5, 1.0),
    "mostly": (0.5, 1.0),
    "majority": (0.5, 1.0),
    "almost all": (0.8, 1.0),
    "nearly all": (0.8, 1.0),
    "minority": (0.0, 0.5),
}


def _span_shares(span: TextProfile) -> list[tuple[float, NumberMention]]:
    """The span's proportions as fractions: percentages and shares said in words."""
    out = []
    for m in span.numbers:
        if m.unit == "percent" and 0 <= m.value <= 100:
            out.append((m.value / 100, m))
        elif m.kind == "fraction" and 0 <= m.value <= 1:
            out.append((m.value, m))
    return out


def _head_after(p: TextProfile, k: int) -> str:
    """The lemma of the first word from ``k`` on past "of" and articles ("most of the
    participants" → "participant"); "" when there is none."""
    while k < len(p.lower) and p.lower[k] in {"of", "the", "a", "an", "all", "its", "their"}:
        k += 1
    return p.lemmas[k] if k < len(p.lower) else ""


def _past_of(p: TextProfile, m: NumberMention) -> int:
    """Where the group a proportion is of begins: past the figure, its unit and "of"
    ("38 percent of participants"); past the end when no "of" follows."""
    k = m.position + m.width
    if k < len(p.lower) and p.lower[k] in {"percent", "%", "per"}:
        k += 2 if p.lower[k] == "per" else 1
    return k + 1 if k < len(p.lower) and p.lower[k] == "of" else len(p.lower)


def share_quantifier_blockers(
    claim: TextProfile, span: TextProfile, span_markers: Sequence[ScopeMarker]
) -> list[Blocker]:
    """ "Most participants were women" from "38 percent of participants were women": a
    claim quantifier that states a share the span's own figure, of the same group, does
    not reach. Only when the span says no quantifier of its own and every proportion it
    gives of the claim's group ("38 percent of participants") falls outside the
    quantifier's range; the claim then waits for a reviewer."""
    if any(m.dimension == "quantifier" for m in span_markers):
        return []
    shares = _span_shares(span)
    if not shares:
        return []
    for m in claim.scope:
        bounds = SHARE_QUANTIFIERS.get(m.phrase)
        if m.dimension != "quantifier" or bounds is None:
            continue
        head = _head_after(claim, m.position + len(m.phrase.split()))
        of_head = [
            (v, f) for v, f in shares if head and _head_after(span, _past_of(span, f)) == head
        ]
        low, high = bounds
        if of_head and all(not (low < value <= high) for value, _ in of_head):
            figure = of_head[0][1]
            return [
                Blocker(
                    "scope",
                    f"scope: claim says '{m.phrase}', span says {fmt(figure, span)}",
                    False,
                )
            ]
    return []


def _is_superlative(lower: tuple[str, ...], i: int) -> bool:
    word = lower[i]
    if word in {"best", "worst", "least"}:
        return True
    if not word.endswith("est") or len(word) < 6 or word in NOT_SUPERLATIVES:
        return False
    prev = lower[i - 1] if i else ""
    return prev in {"the", "its", "their", "his", "her", "our", "my", "your"} or prev.endswith("'s")


def superlative_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    """A superlative the span does not state ("the longest bridge") strengthens it."""
    span_superlatives = {
        span.concepts[k] for k in range(len(span.lower)) if _is_superlative(span.lower, k)
    }
    for i in range(len(claim.lower)):
        if (
            _is_superlative(claim.lower, i)
            and claim.lower[i] not in span.lower_set
            and claim.concepts[i] not in span_superlatives  # "the biggest" / "the largest"
        ):
            word = claim.tokens[i]
            return [Blocker("scope", f"scope: claim says '{word}', span does not", False)]
    return []


def question_blockers(span_text: str, span: TextProfile) -> list[Blocker]:
    """A span of one sentence that asks ("Are polar bear populations increasing?")
    states nothing: it entails neither the claim nor its negation."""
    if span.sentence and span.sentence[-1] == 0 and span_text.rstrip(" .\"'”’)").endswith("?"):
        return [Blocker("scope", "question: the span asks, it does not state", False)]
    return []
