"""Highlighting and diffs as plain segments (pure Python, no Django).

Source text is never turned into HTML here: the functions cut it into segments
that templates loop over and autoescape. Offsets are Python code points, the same
half-open ``[start, end)`` offsets the binder records.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
import unicodedata
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import regex

from verifier.text.words import WORD_MARK_OR_SPACE


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


# What a changed (inserted or deleted) run shows for characters a reader cannot see.
_SHOWN_ALWAYS: Final = {"\r": "␍", "\t": "⇥", "\u00a0": "⍽", "\u200b": "⍽", "\ufeff": "⍽"}
_SHOWN_IN_BLANK: Final = {" ": "·", "\n": "↵\n"}
_NAMES: Final = {
    " ": ("space", "spaces"),
    "\n": ("line feed", "line feeds"),
    "\r": ("carriage return", "carriage returns"),
    "\t": ("tab", "tabs"),
}


@dataclass(frozen=True)
class DiffSegment:
    op: DiffOp
    text: str
    # A removed run and the added run right after it that read the same: they differ only
    # in how accented characters are encoded (composed or decomposed; the same NFC form).
    recoded: bool = False

    @property
    def blank(self) -> bool:
        """A changed run of whitespace only (it would be invisible as it is)."""
        return self.op != "equal" and self.text.isspace()

    @property
    def shown(self) -> str:
        """The text as the diff shows it: an inserted or deleted run shows a carriage
        return, a tab and a no-break or zero-width space as a symbol (the page would
        otherwise hide them), and a run of whitespace only shows its spaces and line feeds
        too; ``text`` stays the exact characters."""
        if self.op == "equal":
            return self.text
        table = {**_SHOWN_ALWAYS, **(_SHOWN_IN_BLANK if self.blank else {})}
        return "".join(
            table.get(c, "·" if c.isspace() and c not in " \n" else c) for c in self.text
        )

    @property
    def words(self) -> str:
        """The whitespace a blank run holds, in words ("2 spaces, 1 carriage return")."""
        if not self.blank:
            return ""
        counts: dict[str, int] = {}
        for c in self.text:
            counts[c] = counts.get(c, 0) + 1
        parts = []
        for c, n in counts.items():
            one, many = _NAMES.get(c, (f"U+{ord(c):04X} space", f"U+{ord(c):04X} spaces"))
            parts.append(f"{n} {one if n == 1 else many}")
        return ", ".join(parts)


# User-perceived characters (extended grapheme clusters, Unicode UAX #29, from the
# ``regex`` package): a combining mark, an emoji ZWJ sequence, a skin-tone modifier, a
# flag's two regional indicators and CR LF each stay one. A diff never cuts inside one,
# so a change of one code point in an emoji sequence shows the whole old and new emoji.
_CLUSTER: Final = regex.compile(r"\X")
_WORD_START: Final = re.compile(r"\w")


def _clusters(text: str) -> list[str]:
    return list(_CLUSTER.findall(text))


def _tokens(text: str) -> list[str]:
    """Runs of whitespace, words, and single other characters, each made of whole
    user-perceived characters (so a diff never tears a combining mark or an emoji)."""
    if text.isascii():
        return WORD_MARK_OR_SPACE.findall(text)
    out: list[str] = []
    kind = ""
    for cluster in _clusters(text):
        now = "s" if cluster.isspace() else "w" if _WORD_START.match(cluster) else "o"
        if out and now == kind and now != "o":
            out[-1] += cluster
        else:
            out.append(cluster)
        kind = now
    return out


def diff_summary(
    old: str, new: str, *, old_name: str = "the first", new_name: str = "the second"
) -> str:
    """One sentence when two texts differ only in what a diff shows poorly."""
    if old == new:
        return "The two versions have the same text."
    if old.replace("\r\n", "\n") == new.replace("\r\n", "\n"):
        return (
            f"The two versions differ only in their line ends: {old_name} has "
            f"{old.count(chr(13) + chr(10))} Windows line ends (CR LF), {new_name} "
            f"{new.count(chr(13) + chr(10))}; ␍ marks each carriage return."
        )
    if old.split() == new.split():
        return "The two versions differ only in whitespace (· a space, ↵ a line feed)."
    if unicodedata.normalize("NFC", old) == unicodedata.normalize("NFC", new):
        return (
            "The two versions differ only in how accented characters are encoded "
            "(composed or decomposed); they read the same."
        )
    return ""


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

    def words(a_whole: str, b_whole: str) -> None:
        # The block's shared beginning and end are equal as they are: only what lies
        # between is compared word by word (one word changed in a 5 MB text with no
        # line break is that word, not the whole text removed and added).
        head, tail = _shared_ends(a_whole, b_whole)
        push("equal", [a_whole[:head]])
        a_text = a_whole[head : len(a_whole) - tail]
        b_text = b_whole[head : len(b_whole) - tail]
        # more words than that is more tokens: no need to cut a long text into them
        many = any(
            len(t.split(maxsplit=WORD_DIFF_MAX_TOKENS)) > WORD_DIFF_MAX_TOKENS
            for t in (a_text, b_text)
        )
        a, b = ([], []) if many else (_tokens(a_text), _tokens(b_text))
        if many or max(len(a), len(b)) > WORD_DIFF_MAX_TOKENS:
            push("delete", [a_text])
            push("insert", [b_text])
        else:
            matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag == "equal":
                    push("equal", a[i1:i2])
                else:
                    push("delete", a[i1:i2])
                    push("insert", b[j1:j2])
        push("equal", [a_whole[len(a_whole) - tail :]])

    a_lines, b_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    lines = difflib.SequenceMatcher(a=a_lines, b=b_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        if tag == "equal":
            push("equal", a_lines[i1:i2])
        else:
            words("".join(a_lines[i1:i2]), "".join(b_lines[j1:j2]))
    return _mark_recoded(out)


def _mark_recoded(out: list[DiffSegment]) -> list[DiffSegment]:
    """Flag each delete + insert pair whose texts differ only in Unicode normalization
    (both sides look the same on the page, so the diff must say why they are a change)."""
    for i in range(len(out) - 1):
        removed, added = out[i], out[i + 1]
        if (
            removed.op == "delete"
            and added.op == "insert"
            and unicodedata.normalize("NFC", removed.text)
            == unicodedata.normalize("NFC", added.text)
        ):
            out[i] = DiffSegment("delete", removed.text, recoded=True)
            out[i + 1] = DiffSegment("insert", added.text, recoded=True)
    return out


# --- a changed block's shared beginning and end ---------------------------------------

# Characters compared at once while finding where two texts start (or stop) differing.
_SHARED_STEP: Final = 4096
# How far back from where they differ a cut may move to land right after whitespace;
# with no whitespace that near, nothing is cut off (the whole block is compared).
_SHARED_CUT_REACH: Final = 1000


def _shared_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _SHARED_STEP] == b[i : i + _SHARED_STEP]:
        i += _SHARED_STEP
    i = min(i, n)
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _shared_suffix(a: str, b: str, limit: int) -> int:
    la, lb, i = len(a), len(b), 0
    while i + _SHARED_STEP <= limit and (
        a[la - i - _SHARED_STEP : la - i] == b[lb - i - _SHARED_STEP : lb - i]
    ):
        i += _SHARED_STEP
    while i < limit and a[la - 1 - i] == b[lb - 1 - i]:
        i += 1
    return i


def _breaks_after_space(text: str, at: int) -> bool:
    """Whether ``text`` may be cut at ``at`` without splitting a word, a run of whitespace
    or a user-perceived character: at either end, or right after whitespace and before a
    character that is not whitespace and starts a user-perceived character of its own
    (not a combining mark, a zero-width joiner, an emoji modifier)."""
    if at <= 0 or at >= len(text):
        return True
    if not text[at - 1].isspace() or text[at].isspace():
        return False
    cluster = _CLUSTER.match(text, at - 1)
    return cluster is not None and cluster.end() == at


def _shared_ends(a: str, b: str) -> tuple[int, int]:
    """(head, tail): how many characters ``a`` and ``b`` share at their beginning and at
    their end, each cut back to where :func:`_breaks_after_space` allows in both texts;
    ``head + tail`` never exceeds the shorter text."""
    shared = _shared_prefix(a, b)
    head = next(
        (
            c
            for c in range(shared, max(0, shared - _SHARED_CUT_REACH) - 1, -1)
            if _breaks_after_space(a, c) and _breaks_after_space(b, c)
        ),
        0,
    )
    shared = _shared_suffix(a, b, min(len(a), len(b)) - head)
    tail = next(
        (
            t
            for t in range(shared, max(0, shared - _SHARED_CUT_REACH) - 1, -1)
            if _breaks_after_space(a, len(a) - t) and _breaks_after_space(b, len(b) - t)
        ),
        0,
    )
    return head, tail


# --- a long diff as pages --------------------------------------------------------------

# Unchanged characters shown either side of a change; a longer unchanged run is cut to
# them, with a note of how many characters are left out.
DIFF_CONTEXT_CHARS: Final = 300
# A removed or added run longer than this shows its first and last halves of it.
DIFF_RUN_SHOWN_CHARS: Final = 4000
# About this many characters of text on one page of a diff: a page ends at the first
# unchanged run left out after it has this many (two 5,000,000-character versions would
# otherwise be a page of 10 MB, which a browser takes half a minute to lay out).
DIFF_PAGE_CHARS: Final = 60_000
_CUT_WORDS: Final = {"equal": "unchanged", "delete": "removed", "insert": "added"}


@dataclass(frozen=True)
class DiffCut:
    """``chars`` characters of unchanged, removed or added text (``within``) that the
    page leaves out."""

    within: DiffOp
    chars: int
    op: Literal["cut"] = "cut"

    @property
    def words(self) -> str:
        plural = "" if self.chars == 1 else "s"
        return f"{self.chars:,} {_CUT_WORDS[self.within]} character{plural} not shown"


def _cut_near(text: str, at: int) -> int:
    """A place near ``at`` to cut ``text`` that splits no user-perceived character: right
    after whitespace when there is some within 200 characters before, else between two
    user-perceived characters."""
    for c in range(at, max(0, at - 200) - 1, -1):
        if _breaks_after_space(text, c):
            return c
    # No whitespace near: the user-perceived character boundary closest after ``at``,
    # read from a little before it (the first match there may start mid-character).
    start = max(0, at - 32)
    found = [m.end() for m in _CLUSTER.finditer(text, start, min(len(text), at + 32))]
    return next((end for end in found[1 if start else 0 :] if end >= at), at)


def _shown(
    segments: Sequence[DiffSegment], *, context: int, run_shown: int
) -> list[DiffSegment | DiffCut]:
    out: list[DiffSegment | DiffCut] = []
    last = len(segments) - 1
    for i, seg in enumerate(segments):
        text = seg.text
        if seg.op == "equal":
            keep_head = context if i > 0 else 0
            keep_tail = context if i < last else 0
        else:
            keep_head = keep_tail = run_shown // 2
        # cut only where it leaves out more than it adds (a note, and a page break)
        if len(text) <= keep_head + keep_tail + max(context, 1):
            out.append(seg)
            continue
        head, tail = _cut_near(text, keep_head), _cut_near(text, len(text) - keep_tail)
        if not head < tail:
            out.append(seg)
            continue
        if head:
            out.append(DiffSegment(seg.op, text[:head], recoded=seg.recoded))
        out.append(DiffCut(seg.op, tail - head))
        if tail < len(text):
            out.append(DiffSegment(seg.op, text[tail:], recoded=seg.recoded))
    return out


def diff_pages(
    segments: Sequence[DiffSegment],
    *,
    context: int = DIFF_CONTEXT_CHARS,
    run_shown: int = DIFF_RUN_SHOWN_CHARS,
    page_chars: int = DIFF_PAGE_CHARS,
) -> list[list[DiffSegment | DiffCut]]:
    """:func:`diff_segments` as the pages of a diff page: every change, with
    ``context`` characters of unchanged text either side (the rest of an unchanged run
    is a :class:`DiffCut`), a removed or added run over ``run_shown`` characters cut to
    its two ends, and a new page at the first unchanged run left out after
    ``page_chars`` characters of text (or after any unchanged run past twice that).
    No pages when the texts are the same."""
    if all(seg.op == "equal" for seg in segments):
        return []
    pages: list[list[DiffSegment | DiffCut]] = [[]]
    size = 0
    for piece in _shown(segments, context=context, run_shown=run_shown):
        pages[-1].append(piece)
        if isinstance(piece, DiffSegment):
            size += len(piece.text)
        cut_here = isinstance(piece, DiffCut) and piece.within == "equal"
        if (cut_here and size >= page_chars) or (piece.op == "equal" and size >= 2 * page_chars):
            pages.append([])
            size = 0
    if not pages[-1]:
        pages.pop()
    return pages


# --- windows of long texts ----------------------------------------------------------

# How much text a source pane shows at once, and how much of it comes before a focused
# span. A 200 KB source is shown a window at a time (more on request), not all at once.
WINDOW_CHARS: Final = 6000
WINDOW_LEAD: Final = 2000


def text_window(
    length: int,
    *,
    focus: tuple[int, int] | None = None,
    at: int | None = None,
    size: int = WINDOW_CHARS,
    lead: int = WINDOW_LEAD,
) -> tuple[int, int]:
    """The ``[start, end)`` window of a text of ``length`` code points to show.

    ``at`` (an explicit start, e.g. "later text") wins; otherwise the window opens
    ``lead`` characters before ``focus`` and always holds the whole focused span;
    otherwise it is the text's beginning. Always within ``[0, length]``.
    """
    if at is not None:
        start = max(0, min(at, length))
        return start, min(length, start + size)
    if focus is not None:
        f_start = max(0, min(focus[0], length))
        f_end = max(f_start, min(focus[1], length))
        start = max(0, f_start - lead)
        end = min(length, max(start + size, f_end + lead))
        return start, end
    return 0, min(length, size)


def window_segments(text: str, spans: Iterable[Span], window: tuple[int, int]) -> list[Segment]:
    """:func:`segments` of ``text[window]``, spans clipped to it, offsets absolute."""
    w_start, w_end = window
    clipped = [
        Span(max(s.start, w_start) - w_start, min(s.end, w_end) - w_start, s.key)
        for s in spans
        if s.start < w_end and s.end > w_start
    ]
    return [
        Segment(seg.text, seg.start + w_start, seg.end + w_start, seg.keys)
        for seg in segments(text[w_start:w_end], clipped)
    ]


# --- where the spans are in the whole text ------------------------------------------

# The span map: the whole text cut into this many equal stretches, each a marker that
# says how many spans start in it and the state that most needs a reader's eye.
SPAN_MAP_CELLS: Final = 48


@dataclass(frozen=True)
class MapCell:
    """One stretch ``[start, end)`` of the text and the spans that start in it."""

    start: int
    end: int
    count: int
    state: str  # the first of the spans' states in the attention order, "" when none
    states: tuple[tuple[str, int], ...]  # (state, spans) in the attention order
    density: int  # 0 (no span) .. 4 (the busiest stretch)
    in_window: bool


def span_map(
    length: int,
    starts: Iterable[tuple[int, str]],
    *,
    window: tuple[int, int],
    attention: Sequence[str],
    cells: int = SPAN_MAP_CELLS,
) -> list[MapCell]:
    """The text of ``length`` code points as ``cells`` equal stretches (fewer for a short
    text), each with the spans (``(start, state)`` pairs) that start in it: a marker for
    every span, also those outside the rendered ``window``, at the cost of a few dozen
    elements. ``attention`` orders the states (the first present is the cell's state)."""
    if length <= 0:
        return []
    n = max(1, min(cells, length))
    bounds = [i * length // n for i in range(n + 1)]
    tallies: list[dict[str, int]] = [{} for _ in range(n)]
    for start, state in starts:
        if 0 <= start < length:
            tally = tallies[bisect.bisect_right(bounds, start) - 1]
            tally[state] = tally.get(state, 0) + 1
    busiest = max((sum(t.values()) for t in tallies), default=0)
    rank = {state: i for i, state in enumerate(attention)}
    out: list[MapCell] = []
    for i, tally in enumerate(tallies):
        start, end = bounds[i], bounds[i + 1]
        count = sum(tally.values())
        ordered = tuple(
            sorted(tally.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))
        )
        density = 0 if count == 0 else min(4, 1 + (3 * count) // busiest)
        out.append(
            MapCell(
                start=start,
                end=end,
                count=count,
                state=ordered[0][0] if ordered else "",
                states=ordered,
                density=density,
                in_window=start < window[1] and end > window[0],
            )
        )
    return out


# --- where a highlighted span starts and ends, in words --------------------------------

SPAN_END_WORDS: Final = 5


@dataclass(frozen=True)
class SpanEnds:
    """The first and last few words of a span, for the sentence that tells a screen-reader
    user where a highlight starts and ends (the highlighted text itself is left exactly as
    the source has it). ``whole`` when the span is short enough to say in full (``head``)."""

    head: str
    tail: str
    whole: bool


def span_ends(text: str, words: int = SPAN_END_WORDS) -> SpanEnds:
    parts = text.split()
    if len(parts) <= 2 * words:
        return SpanEnds(" ".join(parts), "", True)
    return SpanEnds(" ".join(parts[:words]), " ".join(parts[-words:]), False)


# --- a long quote cut short, its characters kept -------------------------------------


def cut_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` user-perceived characters, "…" last when cut.

    Unlike Django's ``truncatechars`` (which returns the NFC form), the characters kept
    are exactly the text's: a decomposed "é" stays decomposed, so a quote shown cut short
    is still the stored quote's beginning, character for character. A cut never falls
    inside a user-perceived character (an emoji sequence, a letter with its marks)."""
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    clusters = _clusters(text)
    if len(clusters) <= limit:
        return text
    return "".join(clusters[: limit - 1]) + "…"


# --- characters a reader cannot see, shown -------------------------------------------

# Invisible characters that reorder the text shown around them: the bidirectional
# embeddings, overrides and isolates ("Trojan Source": ``paid $100`` can be the stored
# ``\u202e001$ diap``), and the direction marks, which move the punctuation and digits
# beside them.
_REORDERING_CHARS: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_DIRECTION_MARKS: Final = frozenset("\u200e\u200f\u061c")
# Zero-width characters that writing needs inside a word of a script that joins its
# letters (Arabic, Persian, the Indic scripts) or breaks words without spaces (Thai):
# shown there as they are; beside a Latin letter, a space or an edge of the text they can
# only hide a difference ("pa\u200did" reads "paid").
_WORD_JOINERS: Final = frozenset("\u200b\u200c\u200d\u2060")
_CONTROL_NAMES: Final = {
    "\r": "carriage return (no line feed after it)",
    "\x0b": "line tabulation",
    "\x0c": "form feed",
    "\x1b": "escape",
    "\x7f": "delete",
    "\x85": "next line",
}
_UNSEEN_CANDIDATE: Final = regex.compile(r"[\p{Cc}\p{Cf}]")
_EMOJI: Final = regex.compile(r"\p{Extended_Pictographic}")
_EMOJI_MODIFIERS: Final = regex.compile(r"[\ufe0f\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f]")


@dataclass(frozen=True)
class TextPiece:
    """A run of a text as a page writes it, character for character. ``code``
    ("U+202E") when it is one character the page marks, because a reader could not see
    it or because it would reorder the text shown around it; ``cr`` when it is a carriage
    return, which a page writes as ``&#13;`` (an HTML parser turns a literal one into a
    line feed)."""

    text: str
    code: str = ""
    name: str = ""

    @property
    def cr(self) -> bool:
        return self.text == "\r"


def _in_emoji_sequence(text: str, at: int) -> bool:
    """Whether ``text[at]`` (a joiner, a tag) continues an emoji sequence: after an
    emoji, its variation selector, skin tone or tags."""
    i = at - 1
    while i >= 0 and _EMOJI_MODIFIERS.fullmatch(text[i]):
        i -= 1
    return i >= 0 and _EMOJI.fullmatch(text[i]) is not None


def _inside_word(text: str, at: int) -> bool:
    """Whether ``text[at]`` sits between two letters or marks that are not ASCII."""
    if at <= 0 or at + 1 >= len(text):
        return False
    return all(
        not ch.isascii() and unicodedata.category(ch)[0] in "LM"
        for ch in (text[at - 1], text[at + 1])
    )


def _unseen_name(text: str, at: int) -> str | None:
    """What ``text[at]`` is when a page must mark it (None when it is shown as it is)."""
    ch = text[at]
    if ch in "\t\n" or (ch == "\r" and text[at + 1 : at + 2] == "\n"):
        return None
    if ch in _REORDERING_CHARS or ch in _DIRECTION_MARKS:
        return unicodedata.name(ch).lower()
    if unicodedata.category(ch) == "Cc":
        return _CONTROL_NAMES.get(ch, "control character")
    if _in_emoji_sequence(text, at) or (ch in _WORD_JOINERS and _inside_word(text, at)):
        return None
    return unicodedata.name(ch, "invisible formatting character").lower()


def shown_pieces(text: str, *, before: str = "", after: str = "") -> list[TextPiece]:
    """``text`` as the runs a page writes, their texts joined giving back ``text``:
    each carriage return a piece of its own (``cr``), and each character a reader could
    not see or that would reorder what is shown around it (a bidirectional override or
    isolate, a direction mark, a control character, a lone carriage return, a zero-width
    space or joiner outside a word of a script that needs it, a byte-order mark) a piece
    with its code point and name, for the page to mark and isolate; the text itself is
    never changed. ``before`` and ``after`` are the text around it where ``text`` is part
    of a longer one (a highlight, a window): a carriage return whose line feed opens
    ``after`` is no lone one, and a joiner is read with the letters either side."""
    lead = before[-1:]
    whole = lead + text + after[:1]
    first, stop = len(lead), len(lead) + len(text)
    out: list[TextPiece] = []
    last = first
    for found in _UNSEEN_CANDIDATE.finditer(whole, first, stop):
        at = found.start()
        name = _unseen_name(whole, at)
        if name is None and whole[at] != "\r":
            continue
        if last < at:
            out.append(TextPiece(whole[last:at]))
        ch = whole[at]
        out.append(TextPiece(ch, f"U+{ord(ch):04X}", name) if name else TextPiece(ch))
        last = at + 1
    if last < stop:
        out.append(TextPiece(whole[last:stop]))
    return out
