"""Scope and modality: ``scope_blockers`` (a hedge, quantifier or modal the claim
strengthens or drops), ``share_quantifier_blockers`` ("most" against the span's own
percentage), ``superlative_blockers`` and ``question_blockers`` (a span that only asks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from verifier.judges.lexicon import PLAIN_LEVEL, STRONG_LEVEL
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
