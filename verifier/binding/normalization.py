"""The matching normalization and its offset map back to the original text.

Folding is done character by character so every normalized character comes from
exactly one original character; that is what lets the ``normalized`` stage map a
match back to whole original characters. Per character the fold is:

* curly/typographic quotes and apostrophes -> ``'`` or ``"``;
* dash punctuation (Unicode category Pd) and minus-like signs -> ``-``;
* any Unicode whitespace (NBSP, thin space, ideographic space, newlines...) -> ``" "``;
* format characters (category Cf: soft hyphen, ZWSP, ZWNJ, ZWJ, word joiner, BOM,
  bidi marks) and variation selectors -> removed;
* everything else: compatibility decomposition (NFKD, which also expands ligatures
  such as "ﬁ" -> "fi") then ``casefold``, repeated to a fixpoint.

Runs of whitespace collapse to one space, and each run of combining marks is put in
canonical order (a stable sort by combining class, what NFD does): a letter's marks fold
the same whichever order they were typed in, or a precomposed letter carries them in
("ê" + dot below is "ệ"; pointed Hebrew and Arabic are often typed dagesh or shadda
first, vowel after, which NFC and NFD swap). So the per-character NFKD defines the same
equivalence as NFKC; :func:`normalize` returns the NFKC (composed) form for display.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from itertools import pairwise

import regex

# Characters whose fold output is a single non-space character map to it in
# ``_FOLD1``; characters needing per-character treatment (removed, or expanding
# to several characters) map to this marker so they can be located by regex.
_SPECIAL = "\uffff"
# The per-character caches only grow up to this many distinct code points, so
# adversarial input cannot grow them without bound.
_CHAR_CACHE_LIMIT = 200_000

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\u02bc\u02bb\u02bd\uff07\u00b4"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02\u301d\u301e\u301f"
_EXTRA_DASHES = "\u2212\u2043\u02d7\u207b\u208b\u2796\ufe63\uff0d"

_CUSTOM: dict[str, str] = {}
_CUSTOM.update(dict.fromkeys(_SINGLE_QUOTES, "'"))
_CUSTOM.update(dict.fromkeys(_DOUBLE_QUOTES, '"'))
_CUSTOM.update(dict.fromkeys(_EXTRA_DASHES, "-"))
_CUSTOM.update(dict.fromkeys((chr(c) for c in range(0xFE00, 0xFE10)), ""))
_CUSTOM.update(dict.fromkeys((chr(c) for c in range(0xE0100, 0xE01F0)), ""))

_MULTISPACE = re.compile(" {2,}")
_SPECIAL_RUN = re.compile("[ \uffff]{2,}|\uffff")


def _fold_piece(ch: str) -> str:
    custom = _CUSTOM.get(ch)
    if custom is not None:
        return custom
    if ch.isspace():
        return " "
    category = unicodedata.category(ch)
    if category == "Pd":
        return "-"
    if category == "Cf":
        return ""
    if category == "Cs":  # lone surrogate: leave as is, it only matches itself
        return ch
    return unicodedata.normalize("NFKD", ch).casefold()


def fold_char(ch: str) -> str:
    """The fold of one character (possibly empty, or several characters)."""
    out = _fold_piece(ch)
    if out == " ":
        return out
    for _ in range(4):
        nxt = "".join([_fold_piece(c) for c in out])
        if nxt == out:
            break
        out = nxt
    # A non-space character never folds to leading/trailing or doubled spaces,
    # so whitespace collapsing only ever concerns real whitespace characters.
    return _MULTISPACE.sub(" ", out).strip(" ")


class _FoldTable(dict[int, str]):
    """code point -> full fold output (computed and cached on first use)."""

    def __missing__(self, key: int) -> str:
        value = fold_char(chr(key))
        if len(self) < _CHAR_CACHE_LIMIT:
            self[key] = value
        return value


class _SingleTable(dict[int, str]):
    """code point -> its one-character fold, " " for whitespace, else the marker."""

    def __missing__(self, key: int) -> str:
        ch = chr(key)
        if ch.isspace():
            value = " "
        else:
            out = _FOLD[key]
            value = out if len(out) == 1 and out != " " and ch != _SPECIAL else _SPECIAL
        if len(self) < _CHAR_CACHE_LIMIT:
            self[key] = value
        return value


_FOLD = _FoldTable()
_SINGLE = _SingleTable()
# Warm the ASCII range so str.translate's ASCII fast path never calls back.
for _code in range(128):
    _ = _SINGLE[_code]


# Runs of marks, where canonical ordering may have work to do (every character of a
# non-zero combining class is a mark; the ``regex`` package reads the category fast).
_MARK_RUN = regex.compile(r"\p{M}{2,}")


def _out_of_order_marks(folded: str) -> list[tuple[int, int]]:
    """``[a, b)`` of each run of marks of ``folded`` not in canonical order: a mark of a
    lower, non-zero combining class right after one of a higher class."""
    if folded.isascii() or unicodedata.is_normalized("NFD", folded):
        return []  # NFD is in canonical order: the quick check that most text passes
    runs = []
    for run in _MARK_RUN.finditer(folded):
        classes = [unicodedata.combining(ch) for ch in run.group()]
        if any(0 < after < before for before, after in pairwise(classes)):
            runs.append(run.span())
    return runs


def _canonical_order(marks: str) -> str:
    """``marks`` stably sorted by combining class between the characters of class 0,
    which nothing moves across (the canonical ordering of NFD)."""
    out: list[str] = []
    movable: list[str] = []
    for ch in marks:
        if unicodedata.combining(ch):
            movable.append(ch)
            continue
        out.extend(sorted(movable, key=unicodedata.combining))
        movable = []
        out.append(ch)
    out.extend(sorted(movable, key=unicodedata.combining))
    return "".join(out)


def _in_canonical_order(folded: str, runs: list[tuple[int, int]]) -> str:
    """``folded`` with the marks of each of ``runs`` in canonical order."""
    parts: list[str] = []
    pos = 0
    for a, b in runs:
        parts.append(folded[pos:a])
        parts.append(_canonical_order(folded[a:b]))
        pos = b
    parts.append(folded[pos:])
    return "".join(parts)


class OffsetMap:
    """Maps normalized-text positions back to original-text positions.

    The map is piecewise: segment ``k`` starts at normalized position
    ``norm_starts[k]`` and original position ``orig_starts[k]``; in a step-1
    segment each normalized character is one original character, in a step-0
    segment several normalized characters come from one original character (e.g.
    "ﬁ" -> "fi") or, for a segment in ``blocks`` (a run of combining marks put in
    canonical order, with the letter they were decomposed from), from the original
    characters ``[orig_starts[k], blocks[k])`` together. A step-0 segment is only ever
    matched whole (``is_aligned``).
    """

    __slots__ = ("blocks", "identity", "norm_len", "norm_starts", "orig_starts", "steps")

    def __init__(
        self,
        norm_starts: list[int],
        orig_starts: list[int],
        steps: list[int],
        norm_len: int,
        blocks: dict[int, int] | None = None,
    ) -> None:
        self.norm_starts = norm_starts
        self.orig_starts = orig_starts
        self.steps = steps
        self.norm_len = norm_len
        self.blocks = blocks or {}
        self.identity = norm_starts == [0] and orig_starts == [0] and steps == [1]

    def _segment(self, i: int) -> int:
        return bisect_right(self.norm_starts, i) - 1

    def orig_of(self, i: int) -> int:
        """Original index of the character that produced normalized char ``i``."""
        if self.identity:
            return i
        k = self._segment(i)
        return self.orig_starts[k] + (i - self.norm_starts[k]) * self.steps[k]

    def end_of(self, i: int) -> int:
        """Original index just after the character(s) that produced normalized char ``i``."""
        if self.identity:
            return i + 1
        k = self._segment(i)
        block_end = self.blocks.get(k)
        if block_end is not None:
            return block_end
        return self.orig_starts[k] + (i - self.norm_starts[k]) * self.steps[k] + 1

    def to_original(self, ns: int, ne: int) -> tuple[int, int]:
        """Original ``[start, end)`` covering normalized ``[ns, ne)`` (``ns < ne``)."""
        if self.identity:
            return ns, ne
        return self.orig_of(ns), self.end_of(ne - 1)

    def with_blocks(self, runs: list[tuple[int, int]]) -> OffsetMap:
        """This map with each normalized run ``[a, b)`` (in order, disjoint) made one
        step-0 block of the original characters it came from, widened to the whole of a
        step-0 segment it starts or ends inside ("ê" of "ê" + dot below)."""
        bounds: list[tuple[int, int]] = []
        for a, b in runs:
            k = self._segment(a)
            if self.steps[k] == 0:
                a = self.norm_starts[k]
            k = self._segment(b - 1)
            if self.steps[k] == 0:
                b = self.norm_starts[k + 1] if k + 1 < len(self.norm_starts) else self.norm_len
            if bounds and a < bounds[-1][1]:
                a = bounds.pop()[0]
            bounds.append((a, b))
        block_of = dict(bounds)
        firsts = [a for a, _ in bounds]

        def inside_a_block(p: int) -> bool:
            i = bisect_right(firsts, p) - 1
            return i >= 0 and bounds[i][0] < p < bounds[i][1]

        starts = sorted(
            {p for p in self.norm_starts if not inside_a_block(p)}
            | set(firsts)
            | {b for _, b in bounds if b < self.norm_len}
        )
        norm_starts: list[int] = []
        orig_starts: list[int] = []
        steps: list[int] = []
        blocks: dict[int, int] = {}
        for p in starts:
            block_end = block_of.get(p)
            if block_end is not None:
                blocks[len(steps)] = self.end_of(block_end - 1)
                steps.append(0)
            else:
                steps.append(self.steps[self._segment(p)])
            norm_starts.append(p)
            orig_starts.append(self.orig_of(p))
        return OffsetMap(norm_starts, orig_starts, steps, self.norm_len, blocks)

    def is_aligned(self, ns: int, ne: int) -> bool:
        """True when ``[ns, ne)`` starts and ends on whole original characters."""
        if self.identity:
            return True
        k = self._segment(ns)
        if self.steps[k] == 0 and self.norm_starts[k] != ns:
            return False
        k = self._segment(ne - 1)
        if self.steps[k] == 0:
            nxt = self.norm_starts[k + 1] if k + 1 < len(self.norm_starts) else self.norm_len
            return nxt == ne
        return True


def fold_with_offsets(text: str) -> tuple[str, OffsetMap]:
    """The folded text (whitespace runs collapsed, not stripped, combining marks in
    canonical order) and its offset map."""
    if text.isascii():
        single = text.lower()
        if "  " not in single and single.isprintable():
            # Fast path: ASCII with no control whitespace and no double spaces is
            # folded by lowercasing alone, one character to one character.
            return single, OffsetMap([0], [0], [1], len(single))
    folded, offsets = _fold_char_by_char(text)
    runs = _out_of_order_marks(folded)
    if runs:
        return _in_canonical_order(folded, runs), offsets.with_blocks(runs)
    return folded, offsets


def _fold_char_by_char(text: str) -> tuple[str, OffsetMap]:
    """``fold_with_offsets`` before the combining marks are put in canonical order."""
    single = text.translate(_SINGLE)
    if _SPECIAL not in single and "  " not in single:
        return single, OffsetMap([0], [0], [1], len(single))

    pieces: list[str] = []
    norm_starts: list[int] = []
    orig_starts: list[int] = []
    steps: list[int] = []
    n = 0  # normalized length so far

    def add_step1(orig: int, length: int, piece: str) -> None:
        nonlocal n
        if not (steps and steps[-1] == 1 and orig_starts[-1] + (n - norm_starts[-1]) == orig):
            norm_starts.append(n)
            orig_starts.append(orig)
            steps.append(1)
        pieces.append(piece)
        n += length

    pos = 0
    fold = _FOLD
    for run in _SPECIAL_RUN.finditer(single):
        a, b = run.span()
        if a > pos:
            add_step1(pos, a - pos, single[pos:a])
        prev_space = False  # a special run follows a non-space char or the start
        for j in range(a, b):
            ch = text[j]
            if single[j] == " ":
                if not prev_space:
                    add_step1(j, 1, " ")
                    prev_space = True
                continue
            out = fold[ord(ch)]
            if not out:
                continue
            if len(out) == 1:
                add_step1(j, 1, out)
            else:
                norm_starts.append(n)
                orig_starts.append(j)
                steps.append(0)
                pieces.append(out)
                n += len(out)
            prev_space = False
        pos = b
    if pos < len(text):
        add_step1(pos, len(text) - pos, single[pos:])
    if not steps:
        norm_starts, orig_starts, steps = [0], [0], [1]
    return "".join(pieces), OffsetMap(norm_starts, orig_starts, steps, n)


def fold(s: str) -> str:
    """The string the matcher compares: folded, whitespace collapsed and stripped."""
    if s.isascii():
        low = s.lower()
        if low.isprintable() and "  " not in low:
            return low.strip(" ")
    # Same result as fold_with_offsets(s)[0].strip(" "): whitespace folds to " "
    # and no other character's fold starts or ends with a space, so collapsing the
    # per-character translation gives the same string without building a map.
    folded = _MULTISPACE.sub(" ", s.translate(_FOLD)).strip(" ")
    runs = _out_of_order_marks(folded)
    return _in_canonical_order(folded, runs) if runs else folded


def normalize(s: str) -> str:
    """The matching normalization of ``s``, NFKC-composed for display.

    ``normalize(a) == normalize(b)`` exactly when ``a`` and ``b`` are equal up to
    whitespace, case, quote style, dashes, NBSP, soft hyphens, zero-width
    characters, ligatures, compatibility forms and the order of combining marks.
    """
    folded = fold(s)
    if folded.isascii():
        return folded
    return unicodedata.normalize("NFKC", folded)
