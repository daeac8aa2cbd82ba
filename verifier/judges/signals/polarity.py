"""Polarity: a comparison with "than" the claim reverses or mirrors (``comparison``), and
``polarity_blockers``, the negations and antonyms by which the span says the opposite of
the claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from verifier.judges.lexicon import ATTRIBUTION_LEMMAS, NUMBER_WORDS, concept, is_antonym
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.text_profile import BOUND_COMPARISON_SIDES, TextProfile, forward
from verifier.text.stopwords import STOPWORDS

COMPARATIVE_HEADS = frozenset({"more", "less", "fewer", "greater"})
# Relational function words are stopwords (no coverage) but flip polarity when the span
# region states the opposite one and not the claim's ("above" vs "below").
POLAR_FUNCTION_WORDS = {"above": "below", "below": "above", "before": "after", "after": "before"}
CONTRAST_WORDS = frozenset({"but", "instead", "rather", "whereas", "while"})
# A negated truth predicate refutes the proposition before it ("Claims that P are not
# supported"): it bears on the claim wherever the claim's words stand.
TRUTH_PREDICATES = frozenset(
    {"supported", "true", "correct", "accurate", "proven", "confirmed", "justified"}
    | {"valid", "founded", "borne", "case", "substantiated", "established"}
)


@dataclass(frozen=True)
class _Comparison:
    """One comparison within a clause: <left> … more/less <adj> (or <adj>-er) than <right>."""

    left: frozenset[str]  # concepts of the content words before the comparative
    right: frozenset[str]  # … after "than"
    head: str  # the comparative's concept ("more", "less", "high", …)
    positions: frozenset[int]  # the comparative's tokens


def _comparison_in(p: TextProfile) -> _Comparison | None:
    """The text's one comparison with "than", if it has exactly one and it compares two
    things (not a quantity: "more than 90 percent", "rather than", "other than")."""
    thans = [
        t
        for t, w in enumerate(p.lower)
        if w == "than" and t > 0 and p.lower[t - 1] not in {"rather", "other"}
    ]
    if len(thans) != 1:
        return None
    t = thans[0]
    nxt = p.lower[t + 1] if t + 1 < len(p.lower) else ""
    if not nxt or nxt[:1].isdigit() or nxt in NUMBER_WORDS:
        return None
    window = range(max(0, t - 3), t)
    heads = [k for k in window if p.lower[k] in COMPARATIVE_HEADS and p.clause[k] == p.clause[t]]
    if heads:
        start = heads[-1]
    elif p.lower[t - 1].endswith("er") and p.lower[t - 1] not in STOPWORDS:
        start = t - 1
    else:
        return None
    clause = p.clause[t]
    left = frozenset(p.concepts[i] for i in p.content if i < start and p.clause[i] == clause)
    right = frozenset(p.concepts[i] for i in p.content if i > t and p.clause[i] == clause)
    if not left or not right:
        return None
    return _Comparison(left, right, concept(p.lower[start]), frozenset(range(start, t)))


def comparison(claim: TextProfile, span: TextProfile) -> tuple[str, frozenset[int]]:
    """How the claim's comparison relates to the span's: ``"reversed"`` (the two things
    swapped, the same comparative: a contradiction), ``"mirrored"`` (swapped with the
    opposite comparative: the same statement) or ``""``; and the claim's comparative
    positions."""
    c, s = _comparison_in(claim), _comparison_in(span)
    if c is None or s is None:
        return "", frozenset()
    # Words both sides share ("building an X index" … "building a Y index") tell nothing
    # apart; the swap is read from what only one side of each comparison names.
    c_left, c_right = c.left - c.right, c.right - c.left
    s_left, s_right = s.left - s.right, s.right - s.left
    swapped = bool(c_right & s_left) and bool(c_left & s_right) and not (c_right & s_right)
    if not swapped:
        return "", frozenset()
    if c.head == s.head:
        return "reversed", c.positions
    if is_antonym(c.head, s.head):
        return "mirrored", c.positions
    return "", frozenset()


def _opposed(claim: TextProfile, i: int, span: TextProfile, k: int) -> bool:
    """Antonyms, also as the differing part of hyphenated compounds ("slowest-growing"
    vs "fastest-growing")."""
    if is_antonym(claim.concepts[i], span.concepts[k]):
        return True
    a, b = claim.lower[i].split("-"), span.lower[k].split("-")
    if len(a) < 2 or len(a) != len(b):
        return False
    differ = [
        (concept(x), concept(y)) for x, y in zip(a, b, strict=True) if concept(x) != concept(y)
    ]
    return len(differ) == 1 and is_antonym(*differ[0])


def _bounds_number(p: TextProfile, k: int) -> bool:
    """Whether the word at ``k`` only bounds a number ("at least a 75% improvement",
    "more than four times"): no antonym of a comparative the other side states."""
    word = p.lower[k]
    if word in {"least", "most"}:
        return k > 0 and p.lower[k - 1] == "at"
    if word in BOUND_COMPARISON_SIDES and k + 1 < len(p.lower) and p.lower[k + 1] == "than":
        return any(m.position in (k + 2, k + 3) for m in p.numbers)
    return False


def _echoed(span: TextProfile, claim_of: Mapping[int, Sequence[int]]) -> set[int]:
    """Span positions whose claim words the span also states, in the same word, in a
    clause with no negation: a negation over them bears on another matter ("Kestrel did
    not repurchase any shares in the quarter" beside "repaid $50 million during the
    quarter"; "context that could never be recovered" beside "the recovery was commercial
    salvage")."""
    negated = {span.clause[k] for k in span.negations}
    positions: dict[int, set[int]] = {}
    for k, ids in claim_of.items():
        for i in ids:
            positions.setdefault(i, set()).add(k)
    return {
        k
        for k, ids in claim_of.items()
        if ids
        and span.clause[k] in negated
        and all(
            any(
                span.clause[q] != span.clause[k]
                and span.clause[q] not in negated
                and span.lemmas[q] == span.lemmas[k]
                for q in positions[i]
            )
            for i in ids
        )
    }


def _negation_bears(span: TextProfile, k: int, aligned: AbstractSet[int]) -> bool:
    """A forward-scoping span negation bears on the claim only when a claim-aligned word
    follows it in its clause before a contrast ("not X but Y", "Y rather than X")."""
    if not forward(span.lower[k]):
        return True
    if any(w in TRUTH_PREDICATES for w in span.lower[k + 1 : k + 3]):
        return True
    return _first_aligned_after(span, k, aligned, passed_over=frozenset()) is not None


def _first_aligned_after(
    p: TextProfile,
    k: int,
    aligned: AbstractSet[int],
    passed_over: AbstractSet[str] = ATTRIBUTION_LEMMAS,
) -> int | None:
    """The first ``aligned`` position after the negation at ``k`` in its clause, before
    a contrast: the word the negation bears on. Aligned words whose lemma is in
    ``passed_over`` are read past ("cannot say whether": the negation bears on what is
    said)."""
    for j in range(k + 1, len(p.lower)):
        if p.clause[j] != p.clause[k] or p.lower[j] in CONTRAST_WORDS:
            return None
        if j in aligned and p.lemmas[j] not in passed_over:
            return j
    return None


def _negated_in_claim(claim: TextProfile, i: int) -> bool:
    """Whether a claim negation comes before the claim's word ``i`` in its clause."""
    return any(n < i and claim.clause[n] == claim.clause[i] for n in claim.negations)


def polarity_blockers(
    claim: TextProfile,
    span: TextProfile,
    region: Sequence[int],
    unmatched: list[int],
    aligned: AbstractSet[int] = frozenset(),
    mirrored: AbstractSet[int] = frozenset(),
    relevant: AbstractSet[int] = frozenset(),
    claim_of: Mapping[int, Sequence[int]] | None = None,
) -> tuple[list[Blocker], int]:
    """Polarity conflict (if any) and how many unmatched claim words are span antonyms.

    ``region``: span token positions that govern the claim (see ``claim_region``); a
    forward negation anywhere in a ``relevant`` clause bears too when the claim's words
    follow it ("It does not by itself determine how much the couriers are owed").
    ``aligned``: span positions matched by claim words; such a word is not also the
    antonym of another claim word ("From its opening until … was finished" / "When it
    opened"). ``mirrored``: claim comparatives of a comparison the span states the other
    way round ("less faithfully than northern speech" / "northern speech … more
    faithfully than"), which agree with the span's opposite comparative. ``claim_of``:
    for a span position, the claim words aligned to it.

    A forward negation on each side that bears on none of the words the two share is a
    paraphrase of one another ("do not lead to illness" / "don't make people ill"): the
    pair cancels. A span negation that bears on a shared word the claim states without
    a negation is a conflict even when both sides count the same negations ("are not
    routinely recommended … unless symptoms develop" / "are routinely recommended …
    even when no symptoms")."""
    region_lower = {span.lower[k]: k for k in region}
    flips: list[tuple[str, str]] = []
    for i in unmatched:
        if i in mirrored or _bounds_number(claim, i):
            continue
        for k in region:
            if k in aligned or _bounds_number(span, k):
                continue
            if span.concepts[k] and _opposed(claim, i, span, k):
                flips.append((claim.tokens[i], span.tokens[k]))
                break
    polar_flips = []
    for i, word in enumerate(claim.lower):
        opposite = POLAR_FUNCTION_WORDS.get(word)
        if opposite and word not in region_lower and opposite in region_lower:
            polar_flips.append((claim.tokens[i], span.tokens[region_lower[opposite]]))
    all_flips = flips + polar_flips
    region_set = set(region)
    claim_of = claim_of or {}
    bearing = set(aligned) - _echoed(span, claim_of)
    span_negs = [
        k
        for k in span.negations
        if (k in region_set or (forward(span.lower[k]) and span.clause[k] in relevant))
        and _negation_bears(span, k, bearing)
    ]
    claim_negs = list(claim.negations)
    claim_aligned = {i for ids in claim_of.values() for i in ids}
    span_idle = [
        k
        for k in span.negations
        if forward(span.lower[k])
        and (k in region_set or span.clause[k] in relevant)
        and k not in span_negs
    ]
    claim_idle = [
        i
        for i in claim_negs
        if forward(claim.lower[i]) and _first_aligned_after(claim, i, claim_aligned) is None
    ]
    paired = claim_idle[: len(span_idle)]
    for i in paired:
        claim_negs.remove(i)
    # The same negation in the same words on both sides ("… and in those who had not (63
    # percent)"): a claim negation that bears on no word it shares with the span, where the
    # span says the same word after the same word, is the span's own, not a conflict.
    span_said = {(span.lower[k - 1], span.lower[k]) for k in span.negations if k > 0}
    for i in claim_idle[len(paired) :]:
        if i > 0 and (claim.lower[i - 1], claim.lower[i]) in span_said:
            claim_negs.remove(i)
    negation_mismatch = (len(claim_negs) % 2) != (len(span_negs) % 2)
    if not negation_mismatch and claim_negs and len(all_flips) % 2 == 0:
        for k in span_negs:
            if not forward(span.lower[k]):
                continue
            target = _first_aligned_after(span, k, aligned)
            words = claim_of.get(target, ()) if target is not None else ()
            said = {claim.concepts[i] for i in words} - {""}
            same = [j for j, c in enumerate(claim.concepts) if c in said] or list(words)
            # a repeated word ("that increase … rather than a rise")
            if words and not any(_negated_in_claim(claim, i) for i in same):
                note = (
                    f"negation: span says '{span.tokens[k]}' of '{claim.tokens[words[0]]}', "
                    "claim does not"
                )
                return [Blocker("negation", note, True)], len(flips)
    antonym_flip = len(all_flips) % 2 == 1
    if negation_mismatch == antonym_flip:
        return [], len(flips)
    if antonym_flip:
        a, b = all_flips[0]
        return [Blocker("antonym", f"antonym: claim '{a}' vs span '{b}'", True)], len(flips)
    if len(span_negs) % 2:
        cue = span.tokens[span_negs[0]]
        note = f"negation: span says '{cue}', claim does not"
    else:
        note = f"negation: claim says '{claims_cue(claim, claim_negs)}', span does not"
    return [Blocker("negation", note, True)], len(flips)


def claims_cue(claim: TextProfile, negs: list[int]) -> str:
    return claim.tokens[negs[0]]
