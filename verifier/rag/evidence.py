"""Evidence inside one chunk: the window a claim is judged against (pure Python).

A claim quoted verbatim (or nearly) binds by ``verifier.binding.bind`` — exact,
normalized or fuzzy. Otherwise the window is the chunk sentence, or pair of adjacent
sentences, whose content words cover most of the claim's (``signals.compare``); ties go
to the shorter window. Offsets are half-open code points into the chunk text, so
``chunk.text[start:end] == quote`` always holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verifier.binding import bind
from verifier.judges.signals import Comparison, compare
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


def _windows(text: str) -> list[tuple[int, int]]:
    spans = sentence_spans(text) or [(0, len(text))]
    out = list(spans)
    for size in range(2, MAX_WINDOW_SENTENCES + 1):
        out.extend((spans[i][0], spans[i + size - 1][1]) for i in range(len(spans) - size + 1))
    return out


def best_window(claim_text: str, chunk: Chunk) -> Window:
    """The window of ``chunk`` that covers most of the claim's content words."""
    candidates = []
    bound = bind(claim_text, chunk.text)
    if bound is not None:
        quote = chunk.text[bound.start : bound.end]
        candidates.append(
            Window(chunk.id, bound.start, bound.end, quote, bound.match, compare(claim_text, quote))
        )
    for start, end in _windows(chunk.text):
        quote = chunk.text[start:end]
        candidates.append(Window(chunk.id, start, end, quote, "exact", compare(claim_text, quote)))
    # Most coverage; then a verbatim match over a sentence window; then the shorter one.
    return max(
        candidates, key=lambda w: (w.coverage, w.match != "fuzzy", bound is not None, -len(w.quote))
    )


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
