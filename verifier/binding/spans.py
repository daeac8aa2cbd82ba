"""The values binding produces: where a quote sits, and how it matched."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MatchKind = Literal["exact", "normalized", "fuzzy"]
RecheckStatus = Literal["fresh", "hash_mismatch", "offsets_out_of_range", "span_lost"]


@dataclass(frozen=True, slots=True)
class Binding:
    """Where ``bind`` found a quote: half-open code-point offsets into the original.

    ``score`` is 1.0 for ``exact`` and ``normalized``; for ``fuzzy`` it is the
    rapidfuzz similarity in [0, 1] of the normalized quote and span (the same value
    a re-check compares with the floor).
    """

    start: int
    end: int
    match: MatchKind
    score: float


@dataclass(frozen=True, slots=True)
class BoundSpan:
    """A stored binding as re-checked at read time."""

    quote: str
    start: int
    end: int
    match: MatchKind
    source_hash: str


# ``bind``'s exact stage must cost little more than ``str.find``; the frozen
# dataclass ``__init__`` (``object.__setattr__`` per field) costs about twice as
# much as setting the slots through their descriptors, which is what this does.
_new_object = object.__new__
_set_start = vars(Binding)["start"].__set__
_set_end = vars(Binding)["end"].__set__
_set_match = vars(Binding)["match"].__set__
_set_score = vars(Binding)["score"].__set__


def new_binding(start: int, end: int, match: MatchKind, score: float) -> Binding:
    """``Binding(start, end, match, score)``, constructed faster."""
    binding: Binding = _new_object(Binding)
    _set_start(binding, start)
    _set_end(binding, end)
    _set_match(binding, match)
    _set_score(binding, score)
    return binding
