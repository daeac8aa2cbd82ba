"""Locate a quote in a source text: exact -> normalized -> fuzzy."""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from rapidfuzz import fuzz

from verifier.binding.boundaries import ends_word, has_word_char, on_word_boundaries, starts_word
from verifier.binding.fuzzy_guard import changes_meaning
from verifier.binding.normalization import fold
from verifier.binding.recheck import DEFAULT_FUZZY_FLOOR, fuzzy_similarity
from verifier.binding.source_index import SourceIndex, source_index
from verifier.binding.spans import Binding, new_binding
from verifier.text.words import NON_SPACE_RUN, WORD_RUN

# Fuzzy matching is only tried for quotes of at least this many word tokens;
# shorter quotes match too many places by accident.
FUZZY_MIN_TOKENS = 4
# Fuzzy search is bounded: candidate windows are placed around occurrences of
# anchors (word trigrams, then bigrams, then long single words of the quote).
FUZZY_MAX_ANCHORS = 8
FUZZY_MAX_HITS_PER_ANCHOR = 8
FUZZY_MAX_WINDOWS = 32
FUZZY_MIN_ANCHOR_WORD = 4
# Occurrences inside words (or, normalized, inside a character) skipped per stage before
# the stage gives up: a short quote such as "e" occurs inside words everywhere, and
# checking each of a 5 MB source's would cost seconds. A quote whose first whole-word
# occurrence comes after this many others inside words does not bind that way.
MAX_SKIPPED_OCCURRENCES = 10_000
# rapidfuzz pre-filter: windows whose best partial alignment is this far (in
# percentage points) below the floor are not scored further.
_PREFILTER_MARGIN = 15.0


def bind(
    quote: str,
    text: str,
    *,
    fuzzy_floor: float = DEFAULT_FUZZY_FLOOR,
    index: SourceIndex | None = None,
    fuzzy: bool = True,
) -> Binding | None:
    """Bind ``quote`` to ``[start, end)`` offsets of ``text``, or ``None``.

    Stages: ``exact`` (first occurrence), ``normalized`` (first occurrence in the
    folded text that covers whole original characters), ``fuzzy`` (quotes of at
    least ``FUZZY_MIN_TOKENS`` words; best window at or above ``fuzzy_floor`` that
    changes no negation or number, ``verifier.binding.fuzzy_guard``). Every stage
    binds only spans that start and end on word boundaries of ``text``
    (``verifier.binding.boundaries``): an occurrence inside a word is skipped for the
    next one (at most ``MAX_SKIPPED_OCCURRENCES``). A quote with no letter or digit
    binds nowhere.
    Pass ``index`` (``source_index(text, sha256)``) when binding many quotes;
    ``fuzzy=False`` stops after the normalized stage (the fuzzy search is the costly one).
    Never raises for ``str`` input.
    """
    if not quote or not has_word_char(quote):
        return None
    start = text.find(quote)
    skipped = 0
    while start >= 0 and skipped < MAX_SKIPPED_OCCURRENCES:
        end = start + len(quote)
        if on_word_boundaries(text, start, end):
            return new_binding(start, end, "exact", 1.0)
        skipped += 1
        start = text.find(quote, start + 1)

    folded_quote = fold(quote)
    if not folded_quote or not text:
        return None
    if index is None or (index.text is not text and index.text != text):
        index = source_index(text)

    span = next(_normalized_spans(folded_quote, index), None)
    if span is not None:
        return new_binding(span[0], span[1], "normalized", 1.0)
    if not fuzzy:
        return None
    return _bind_fuzzy(folded_quote, index, fuzzy_floor)


def _exact_starts(quote: str, text: str) -> Iterator[int]:
    """Starts of the exact occurrences of ``quote`` on word boundaries, in order."""
    start = text.find(quote)
    skipped = 0
    while start >= 0 and skipped < MAX_SKIPPED_OCCURRENCES:
        if on_word_boundaries(text, start, start + len(quote)):
            yield start
        else:
            skipped += 1
        start = text.find(quote, start + 1)


def _normalized_spans(folded_quote: str, index: SourceIndex) -> Iterator[tuple[int, int]]:
    """Original ``(start, end)`` of the normalized occurrences of ``folded_quote`` that
    cover whole original characters on word boundaries, in order."""
    normalized = index.normalized
    offsets = index.offsets
    ns = normalized.find(folded_quote)
    skipped = 0
    while ns >= 0 and skipped < MAX_SKIPPED_OCCURRENCES:
        ne = ns + len(folded_quote)
        if offsets.is_aligned(ns, ne):
            s, e = offsets.to_original(ns, ne)
            if on_word_boundaries(index.text, s, e):
                yield s, e
                ns = normalized.find(folded_quote, ns + 1)
                continue
        skipped += 1
        ns = normalized.find(folded_quote, ns + 1)


# Occurrences are counted up to this many: a quote that occurs this often is ambiguous
# however many more there are, and counting stays bounded on a huge source.
OCCURRENCES_COUNTED = 100


def occurrences(
    quote: str, text: str, found: Binding, *, index: SourceIndex | None = None
) -> int | None:
    """How many times ``quote`` occurs in ``text`` the way ``found`` (``bind``'s answer)
    matched it, on word boundaries, the bound one included, counted up to
    ``OCCURRENCES_COUNTED``: ``exact`` counts exact occurrences, ``normalized`` those of
    the folded quote in the folded text. ``None`` for ``fuzzy`` (the best window is
    bound, not an occurrence). ``bind`` binds the first occurrence; more than one means
    the quote alone does not say which passage it meant."""
    if found.match == "fuzzy":
        return None
    if found.match == "exact":
        found_at: Iterator[object] = _exact_starts(quote, text)
    else:
        if index is None or (index.text is not text and index.text != text):
            index = source_index(text)
        found_at = _normalized_spans(fold(quote), index)
    return max(1, sum(1 for _ in islice(found_at, OCCURRENCES_COUNTED)))


def _anchors(folded_quote: str, words: list[re.Match[str]]) -> list[tuple[str, int]]:
    """Distinct anchor strings with their offset in the quote, most specific first."""
    found: list[tuple[str, int]] = []
    seen: set[str] = set()
    for size in (3, 2):
        grams = [
            (folded_quote[words[i].start() : words[i + size - 1].end()], words[i].start())
            for i in range(len(words) - size + 1)
        ]
        grams.sort(key=lambda gram: -len(gram[0]))
        for gram in grams[:4]:
            if gram[0] not in seen:
                seen.add(gram[0])
                found.append(gram)
    singles = sorted(
        ((w.group(), w.start()) for w in words if len(w.group()) >= FUZZY_MIN_ANCHOR_WORD),
        key=lambda single: -len(single[0]),
    )
    for single in singles:
        if single[0] not in seen:
            seen.add(single[0])
            found.append(single)
    return found[:FUZZY_MAX_ANCHORS]


def _bind_fuzzy(folded_quote: str, index: SourceIndex, floor: float) -> Binding | None:
    words = list(WORD_RUN.finditer(folded_quote))
    if len(words) < FUZZY_MIN_TOKENS:
        return None
    normalized = index.normalized
    qlen = len(folded_quote)
    slack = qlen // 4 + 8
    best: tuple[float, int, int] | None = None
    evaluated: list[tuple[int, int]] = []

    def consider(ws: int, we: int) -> None:
        nonlocal best
        if any(a <= ws and we <= b for a, b in evaluated):
            return
        evaluated.append((ws, we))
        found = _score_window(folded_quote, index, ws, we, floor)
        if found is None or found[0] < floor or (best is not None and found[0] <= best[0]):
            return
        _, start, end = found
        if not changes_meaning(folded_quote, fold(index.text[start:end])):
            best = found

    if len(normalized) <= qlen + 2 * slack:
        consider(0, len(normalized))
    else:
        for anchor, offset in _anchors(folded_quote, words):
            hits = 0
            pos = normalized.find(anchor)
            while pos >= 0 and hits < FUZZY_MAX_HITS_PER_ANCHOR:
                if len(evaluated) >= FUZZY_MAX_WINDOWS:
                    break
                origin = pos - offset
                consider(max(0, origin - slack), min(len(normalized), origin + qlen + slack))
                hits += 1
                pos = normalized.find(anchor, pos + 1)
            if best is not None and best[0] >= floor:
                break
    if best is None:
        return None
    score, start, end = best
    return new_binding(start, end, "fuzzy", score)


def _score_window(
    folded_quote: str, index: SourceIndex, ws: int, we: int, floor: float
) -> tuple[float, int, int] | None:
    """Best (score, start, end) in original offsets for one normalized window.

    rapidfuzz's partial alignment has the quote's length; the span is then refined
    to word boundaries (end first, then start) so insertions and deletions in the
    quote are not penalised twice.
    """
    normalized = index.normalized
    window = normalized[ws:we]
    alignment = fuzz.partial_ratio_alignment(
        folded_quote, window, score_cutoff=max(0.0, floor * 100.0 - _PREFILTER_MARGIN)
    )
    if alignment is None:
        return None
    ds, de = alignment.dest_start, alignment.dest_end
    # Span edges are tried at word and non-space-run boundaries near the alignment.
    tokens = sorted(
        {m.span() for m in NON_SPACE_RUN.finditer(window)}
        | {m.span() for m in WORD_RUN.finditer(window)}
    )
    if not tokens:
        return None
    reach = len(folded_quote) // 4 + 8
    # Only edges on word boundaries of the original text (``boundaries``): a word run of
    # the folded text may start after a hyphen ("non-toxic") or a mark.
    text, orig_of = index.text, index.offsets.orig_of
    edges_a = [a for a in {a for a, _ in tokens} if starts_word(text, orig_of(ws + a), len(text))]
    end_of = index.offsets.end_of
    edges_b = [b for b in {b for _, b in tokens} if ends_word(text, 0, end_of(ws + b - 1))]
    if not edges_a or not edges_b:
        return None
    starts = sorted(a for a in edges_a if abs(a - ds) <= reach) or [min(edges_a)]
    ends = sorted(b for b in edges_b if abs(b - de) <= reach) or [max(edges_b)]
    first = min(starts, key=lambda a: (abs(a - ds), a))
    widened = _best_bound(folded_quote, window, [(first, b) for b in ends if b > first])
    if widened is None:
        return None
    last = widened[1]
    refined = _best_bound(folded_quote, window, [(a, last) for a in starts if a < last])
    if refined is None:
        return None
    ns, ne = ws + refined[0], ws + refined[1]
    orig_start, orig_end = index.to_original(ns, ne)
    score = fuzzy_similarity(folded_quote, fold(index.text[orig_start:orig_end]))
    return score, orig_start, orig_end


def _best_bound(
    folded_quote: str, window: str, spans: list[tuple[int, int]]
) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    best_score = -1.0
    for a, b in spans:
        score = fuzz.ratio(folded_quote, window[a:b])
        if score > best_score:
            best, best_score = (a, b), score
    return best
