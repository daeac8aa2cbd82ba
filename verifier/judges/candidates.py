"""What an offline judge compares a claim with: each bound span on its own and, with
several spans, all of them joined (a claim may need two spans together); and whether the
claim is one of them verbatim. Shared by every judge that reads spans itself. No Django
imports."""

from __future__ import annotations

from verifier.judges.base import JudgeItem


def fold(text: str) -> str:
    """Whitespace collapsed and case folded: how "verbatim" is compared."""
    return " ".join(text.split()).casefold()


JOINED_PREFIX = "spans "


def candidate_texts(item: JudgeItem) -> list[tuple[str, str]]:
    """(label, span text) for each non-empty span, and all of them joined."""
    spans = [(i, s.strip()) for i, s in enumerate(item.spans, start=1) if s.strip()]
    out = [(f"span {i}", s) for i, s in spans]
    if len(spans) > 1:
        label = JOINED_PREFIX + "+".join(str(i) for i, _ in spans)
        out.append((label, " ".join(s for _, s in spans)))
    return out


def is_joined(label: str) -> bool:
    """Whether a candidate label names all the spans joined ("spans 1+2")."""
    return label.startswith(JOINED_PREFIX)


def verbatim_candidate(item: JudgeItem) -> str | None:
    """The label of the candidate the claim is verbatim, or None."""
    claim = fold(item.claim)
    return next((label for label, text in candidate_texts(item) if fold(text) == claim), None)
