"""What the claim's words may stand for, and who says it.

A span-initial pronoun for the claim's subject (``pronoun_subject``), names the context
gives (``context_names``); whether a text attributes a proposition (``attributes``).
"""

from __future__ import annotations

from collections.abc import Mapping

from verifier.judges.lexicon import ATTRIBUTION_LEMMAS, lemma
from verifier.judges.signals.text_profile import Aligned, TextProfile, profile
from verifier.text.stopwords import STOPWORDS

# Span-initial subject pronouns stand for the claim's subject when the span goes on with
# the claim's own predicate ("It anchors…" for "Giant kelp anchors…").
SUBJECT_PRONOUNS = {"it": "thing", "he": "person", "she": "person", "they": "plural"}
PRONOUN_SUBJECT_MAX_WORDS = 4
PRONOUN_PREDICATE_GAP = 3  # tokens between the pronoun and the claim's first aligned word


def pronoun_subject(
    claim: TextProfile, span: TextProfile, matched: list[int], support: Mapping[Aligned, list[int]]
) -> tuple[list[int], str]:
    """Claim subject words a span-initial pronoun stands for, and a note.

    Only when the span opens with a subject pronoun (no content word before it), the
    claim opens with at most PRONOUN_SUBJECT_MAX_WORDS uncovered words, the claim's next
    word is found right after the pronoun ("It anchors…" / "Giant kelp anchors…"), and
    the pronoun agrees (he/she: a named person; they: a plural; it: a singular)."""
    first_content = span.content[0] if span.content else len(span.lower)
    pronouns = [k for k in range(first_content) if span.lower[k] in SUBJECT_PRONOUNS]
    if not pronouns or not matched:
        return [], ""
    k0 = pronouns[0]
    head = min(matched)
    subject = [i for i in claim.content if i < head]
    if not subject or len(subject) > PRONOUN_SUBJECT_MAX_WORDS:
        return [], ""
    # A negation or a number in or before the subject ("No wall …", "In 1998 the wall
    # …") leaves it unclear what the pronoun stands for; one after it is the predicate's
    # ("The wall is 412 metres long" / "It is 412 metres long"), which the number and
    # polarity checks read as they read any other claim.
    if any(i <= subject[-1] for i in (*claim.negations, *(m.position for m in claim.numbers))):
        return [], ""
    if not any(k0 < k <= k0 + PRONOUN_PREDICATE_GAP for k in support.get(("w", head), [])):
        return [], ""
    kind = SUBJECT_PRONOUNS[span.lower[k0]]
    last = claim.lower[subject[-1]]
    named = any(set(claim.lower[i] for i in subject) & set(e) for e in claim.entities) or (
        subject[0] == 0 and any(claim.tokens[i][0].isupper() for i in subject[1:])
    )
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is"))
    if kind == "person" and not named:
        return [], ""
    if kind == "plural" and not plural:
        return [], ""
    if kind == "thing" and plural:
        return [], ""
    words = " ".join(claim.tokens[subject[0] : subject[-1] + 1])
    return subject, f"'{span.tokens[k0]}' read as '{words}'"


def attributes(profile_: TextProfile, verbs: frozenset[str] = ATTRIBUTION_LEMMAS) -> bool:
    """The text attributes a proposition ("X held that", "According to X", "put forward")."""
    return any(lem in verbs for lem in profile_.lemmas) or any(
        profile_.concepts[i] in verbs for i in profile_.content
    )


def context_names(claim: TextProfile, context_text: str) -> frozenset[str]:
    """Words of the claim's names (entities, a capitalised first word) that the
    context — the source title and the sentence before the span — gives: a span that
    says "the light" or "he" may stand for them. Names only: support must still come
    from the span."""
    if not context_text.strip():
        return frozenset()
    context = profile(context_text)
    words = {w for entity in claim.entities for w in entity}
    if claim.tokens and claim.tokens[0][:1].isupper():
        words.add(claim.lower[0])
    return frozenset(
        w
        for w in words
        if w not in STOPWORDS and (w in context.lower_set or lemma(w) in context.lemma_set)
    )
