"""Evidence inside one chunk: the window a claim is judged against (pure Python).

A claim quoted verbatim (or nearly) binds by ``verifier.binding.bind`` — exact,
normalized or fuzzy. Otherwise the window is the chunk sentence, or pair of adjacent
sentences, whose content words cover most of the claim's (``signals.compare``); ties go
to the shorter window. Offsets are half-open code points into the chunk text, so
``chunk.text[start:end] == quote`` always holds.

``compare`` costs about a millisecond and a 4,000-character chunk has some 90 windows,
so ``best_window`` does not run it on all of them. Each window first gets a ceiling:
the claim words it states itself plus every word a span pronoun, a reporting verb or an
antonym could add (``signals.coverage_ceiling``; what each claim word matches in each
window of a chunk is worked out once per chunk and kept for the answer's other claims).
Windows are then compared in full from the highest ceiling down, until none left could
beat the best one found; the costly fuzzy search for the claim's quote runs only when
no window covers every claim word (a fuzzy quote wins only by covering more). The
window chosen is the one comparing every window would choose.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from verifier.binding import bind
from verifier.judges.signals import (
    Comparison,
    TextProfile,
    compare,
    coverage_ceiling,
    distinct_content,
    may_flip,
    opposed_concepts,
    profile,
    stem_matches,
    word_in,
)
from verifier.rag.chunks import Chunk
from verifier.text.sentences import sentence_spans

MAX_WINDOW_SENTENCES = 2


@dataclass(frozen=True)
class Window:
    chunk_id: str
    start: int
    end: int
    quote: str
    match: str  # exact | normalized | fuzzy
    comparison: Comparison

    @property
    def coverage(self) -> float:
        return self.comparison.coverage

    def as_dict(self) -> dict[str, object]:
        return {
            "chunk_id": self.chunk_id,
            "quote": self.quote,
            "start": self.start,
            "end": self.end,
            "match": self.match,
        }


@dataclass
class ChunkWindows:
    """A chunk's sentence and adjacent-sentence windows with their profiles, the
    concepts they hold, and what each claim word seen so far matches in each window
    (bit ``n``: window ``n``). Built once per chunk for an audit (``chunk_windows``)
    and kept only while it runs: every claim of the answer reads it."""

    text: str
    spans: tuple[tuple[int, int], ...]
    profiles: tuple[TextProfile, ...]
    concepts: frozenset[str]
    words: dict[tuple[str, str, str], tuple[int, int]] = field(default_factory=dict)

    def word(self, claim: TextProfile, i: int) -> tuple[int, int]:
        """(windows stating claim word ``i``, other windows where it may be an antonym)."""
        key = (claim.concepts[i], claim.lemmas[i], claim.lower[i])
        found = self.words.get(key)
        if found is None:
            stems = stem_matches(claim.concepts[i], self.concepts)
            opposed = opposed_concepts(claim.concepts[i], self.concepts)
            stated = flips = 0
            for n, span in enumerate(self.profiles):
                if word_in(claim, i, span, stems):
                    stated |= 1 << n
                elif may_flip(claim, i, span, opposed):
                    flips |= 1 << n
            found = self.words[key] = (stated, flips)
        return found

    def ceilings(self, claim: TextProfile) -> list[int]:
        """Per window, the most claim words ``compare`` can count as covered."""
        words = [(i, *self.word(claim, i)) for i in distinct_content(claim)]
        out = []
        for n, span in enumerate(self.profiles):
            unmatched = [i for i, stated, _ in words if not stated >> n & 1]
            flips = sum(1 for _, _, may in words if may >> n & 1)
            matched = len(words) - len(unmatched)
            out.append(coverage_ceiling(claim, span, matched, unmatched, flips))
        return out


def chunk_windows(text: str) -> ChunkWindows:
    """The windows of a chunk's text, profiled."""
    spans = sentence_spans(text) or [(0, len(text))]
    out = list(spans)
    for size in range(2, MAX_WINDOW_SENTENCES + 1):
        out.extend((spans[i][0], spans[i + size - 1][1]) for i in range(len(spans) - size + 1))
    profiles = tuple(profile(text[start:end]) for start, end in out)
    concepts = frozenset().union(*(p.concept_set for p in profiles))
    return ChunkWindows(text, tuple(out), profiles, concepts)


Rank = tuple[int, bool, int, int]


def _rank(window: Window, order: int) -> Rank:
    """How ``best_window`` orders windows, highest best: claim words covered (the same
    claim, so the same total, for every window), not fuzzy, shorter, then ``order``:
    0 for the bound quote, minus one minus its place for a window in reading order."""
    covered = round(window.coverage * window.comparison.content_words)
    return (covered, window.match != "fuzzy", -len(window.quote), order)


def best_window(claim_text: str, chunk: Chunk, windows: ChunkWindows | None = None) -> Window:
    """The window of ``chunk`` that covers most of the claim's content words: most
    coverage; then a verbatim match over a sentence window; then the shorter one; then
    the first (the bound quote, then the windows in reading order). Pass ``windows``
    (``chunk_windows(chunk.text)``) when judging many claims against the chunk."""
    claim = profile(claim_text)
    if windows is None or windows.text != chunk.text:
        windows = chunk_windows(chunk.text)
    best: tuple[Rank, Window] | None = None

    def consider(start: int, end: int, match: str, order: int) -> None:
        nonlocal best
        quote = chunk.text[start:end]
        window = Window(chunk.id, start, end, quote, match, compare(claim_text, quote))
        rank = _rank(window, order)
        if best is None or rank > best[0]:
            best = (rank, window)

    bound = bind(claim_text, chunk.text, fuzzy=False)
    if bound is not None:
        consider(bound.start, bound.end, bound.match, 0)
    ceilings: list[tuple[Rank, int, int]] = [
        ((most, True, start - end, -1 - n), start, end)
        for n, ((start, end), most) in enumerate(
            zip(windows.spans, windows.ceilings(claim), strict=True)
        )
    ]
    for ceiling, start, end in sorted(ceilings, reverse=True):
        if best is not None and ceiling < best[0]:
            break  # neither this window nor any after it can rank above the best
        consider(start, end, "exact", ceiling[3])
    assert best is not None  # a chunk has at least one window
    if bound is None and best[0][0] < len(distinct_content(claim)):
        bound = bind(claim_text, chunk.text)  # exact and normalized found nothing: fuzzy
        if bound is not None:
            consider(bound.start, bound.end, bound.match, 0)
    return best[1]


def content_words(claim_text: str) -> int:
    return compare(claim_text, "").content_words


def greedy_cover(claim_text: str, windows: Sequence[Window], *, limit: int = 3) -> list[Window]:
    """Up to ``limit`` windows that together cover the most claim words; each one adds
    words the others do not (so no chunk is padded in)."""
    chosen: list[Window] = []
    covered: set[str] = set()
    total = set(compare(claim_text, "").uncovered)
    for _ in range(limit):
        gain_best: tuple[int, Window] | None = None
        for window in windows:
            if window in chosen:
                continue
            gain = len((total - set(window.comparison.uncovered)) - covered)
            if gain and (gain_best is None or gain > gain_best[0]):
                gain_best = (gain, window)
        if gain_best is None:
            break
        chosen.append(gain_best[1])
        covered |= total - set(gain_best[1].comparison.uncovered)
    return chosen
