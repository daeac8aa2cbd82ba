"""Highlighting and diffs as plain segments (pure Python, no Django).

Source text is never turned into HTML here: the functions cut it into segments
that templates loop over and autoescape. Offsets are Python code points, the same
half-open ``[start, end)`` offsets the binder records.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal


@dataclass(frozen=True)
class Span:
    """A highlighted range ``[start, end)`` carrying a key (e.g. a binding id)."""

    start: int
    end: int
    key: Hashable


@dataclass(frozen=True)
class Segment:
    """A run of text covered by exactly the same set of spans (``keys``, in input order)."""

    text: str
    start: int
    end: int
    keys: tuple[Hashable, ...]

    @property
    def highlighted(self) -> bool:
        return bool(self.keys)


def segments(text: str, spans: Iterable[Span]) -> list[Segment]:
    """Cut ``text`` into non-overlapping segments at every span boundary.

    Spans may overlap, nest, touch or repeat. Offsets are clamped to the text;
    empty or inverted spans are ignored. Concatenating the segments' text gives
    back ``text``; adjacent segments never carry the same key set (they merge).
    A sweep over the boundaries: O(b log b + b × depth) for b boundaries.
    """
    n = len(text)
    opens: dict[int, list[int]] = {}
    closes: dict[int, list[int]] = {}
    keys_by_index: list[Hashable] = []
    for span in spans:
        start, end = max(0, min(span.start, n)), max(0, min(span.end, n))
        if start < end:
            index = len(keys_by_index)
            keys_by_index.append(span.key)
            opens.setdefault(start, []).append(index)
            closes.setdefault(end, []).append(index)
    cuts = sorted({0, n, *opens, *closes})
    active: set[int] = set()
    out: list[Segment] = []
    for left, right in itertools.pairwise(cuts):
        active.difference_update(closes.get(left, ()))
        active.update(opens.get(left, ()))
        keys: list[Hashable] = []
        for index in sorted(active):
            if keys_by_index[index] not in keys:
                keys.append(keys_by_index[index])
        if out and tuple(keys) == out[-1].keys:
            prev = out[-1]
            out[-1] = Segment(prev.text + text[left:right], prev.start, right, prev.keys)
        else:
            out.append(Segment(text[left:right], left, right, tuple(keys)))
    return out


DiffOp = Literal["equal", "insert", "delete"]

_TOKEN: Final = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


@dataclass(frozen=True)
class DiffSegment:
    op: DiffOp
    text: str


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


# Word-level diffs only inside changed line blocks up to this many tokens a side;
# bigger blocks are shown as a whole delete + insert, so the cost stays bounded.
WORD_DIFF_MAX_TOKENS: Final = 3000


def diff_segments(old: str, new: str) -> list[DiffSegment]:
    """A line-then-word diff of ``old`` → ``new`` as ordered segments.

    Joining the ``equal`` + ``delete`` texts gives ``old``; ``equal`` + ``insert``
    gives ``new``. A replacement is a delete followed by an insert.
    """
    out: list[DiffSegment] = []

    def push(op: DiffOp, parts: Sequence[str]) -> None:
        chunk = "".join(parts)
        if not chunk:
            return
        if out and out[-1].op == op:
            out[-1] = DiffSegment(op, out[-1].text + chunk)
        else:
            out.append(DiffSegment(op, chunk))

    def words(a_text: str, b_text: str) -> None:
        a, b = _tokens(a_text), _tokens(b_text)
        if max(len(a), len(b)) > WORD_DIFF_MAX_TOKENS:
            push("delete", [a_text])
            push("insert", [b_text])
            return
        matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                push("equal", a[i1:i2])
            else:
                push("delete", a[i1:i2])
                push("insert", b[j1:j2])

    a_lines, b_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    lines = difflib.SequenceMatcher(a=a_lines, b=b_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        if tag == "equal":
            push("equal", a_lines[i1:i2])
        else:
            words("".join(a_lines[i1:i2]), "".join(b_lines[j1:j2]))
    return out
