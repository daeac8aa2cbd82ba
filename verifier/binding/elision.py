"""Elision markers in a quote: the "…", "[...]" or ". . ." a writer puts where words of
the source are left out (pure Python, no Django).

Binding never reads past one: a quote that joins two passages of the source with an
ellipsis is not one continuous span, so it binds only when its passages are close enough
for a fuzzy match. :func:`quote_elision` finds the marker so that the reason a claim is
unbound can say so; it does not change what :func:`verifier.binding.bind` binds.

A run of dots between two digits is a range or a number ("1...3", "2…5"), not an
elision; a single dot is never one (a decimal point, a full stop).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# An ellipsis character, three or more dots, or three dots with single spaces between;
# optionally in square or round brackets ("[…]", "[...]", "(...)").
_DOTS: Final = r"(?:\u2026|\.{3,}|\.(?: \.){2,})"
ELISION_MARKER: Final = re.compile(rf"\[\s*{_DOTS}\s*\]|\(\s*{_DOTS}\s*\)|{_DOTS}")


@dataclass(frozen=True, slots=True)
class Elision:
    """The first elision marker of a quote: its text as written and its place."""

    marker: str
    start: int
    end: int
    joins: bool  # words on both sides: it joins passages (else it opens or ends the quote)


def _has_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def quote_elision(quote: str) -> Elision | None:
    """The quote's elision marker (the first that joins passages, else the first at
    either end), or None when it has none outside numbers."""
    first: Elision | None = None
    for match in ELISION_MARKER.finditer(quote):
        start, end = match.span()
        before, after = quote[:start], quote[end:]
        if before[-1:].isdigit() and after[:1].isdigit():
            continue  # "1...3": a range, not an elision
        elision = Elision(
            marker=match.group(),
            start=start,
            end=end,
            joins=_has_word(before) and _has_word(after),
        )
        if elision.joins:
            return elision
        first = first or elision
    return first
