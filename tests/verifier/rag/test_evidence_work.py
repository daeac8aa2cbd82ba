"""``best_window`` chooses the window comparing every window would choose, with a
bounded number of full comparisons (``verifier/rag/evidence.py``).

The reference below is the rule written out the slow way: ``compare`` on the bound
quote and on every sentence and adjacent-sentence window, the best by coverage, then not
fuzzy, then shorter, then first. Work is counted by wrapping the real ``compare`` and the
real fuzzy search, never by timing."""

from __future__ import annotations

import pytest

from verifier.binding import bind, locate
from verifier.binding.source_index import SourceIndex
from verifier.binding.spans import Binding
from verifier.judges.lexicon import ANTONYM_PREFIXES, lemma
from verifier.judges.signals import Comparison, compare
from verifier.rag import evidence
from verifier.rag.chunks import Chunk
from verifier.rag.evidence import Window, best_window, chunk_windows

FILLER = [
    "The harbour office keeps a ledger of every ship that docks at the north pier.",
    "Fishing boats leave before dawn and return with the tide in the afternoon.",
    "A ferry crosses to the island twice a day except during winter storms.",
    "The old warehouse near the quay now houses a small museum of maritime maps.",
    "Tourists buy smoked fish at the market stalls beside the harbour wall.",
]
KEY = "Tarn Point Light was automated in 1987 after the last keeper retired."


def reference(claim: str, chunk: Chunk) -> Window:
    candidates = []
    bound = bind(claim, chunk.text)
    if bound is not None:
        quote = chunk.text[bound.start : bound.end]
        candidates.append(
            Window(chunk.id, bound.start, bound.end, quote, bound.match, compare(claim, quote))
        )
    for start, end in chunk_windows(chunk.text).spans:
        quote = chunk.text[start:end]
        candidates.append(Window(chunk.id, start, end, quote, "exact", compare(claim, quote)))
    return max(candidates, key=lambda w: (w.coverage, w.match != "fuzzy", -len(w.quote)))


def long_chunk(key: str = KEY, at: int = 17) -> Chunk:
    sentences = [FILLER[i % len(FILLER)] for i in range(30)]
    sentences.insert(at, key)
    return Chunk("c1", " ".join(sentences))


@pytest.fixture
def compare_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def counting(claim_text: str, span_text: str, context_text: str = "") -> Comparison:
        calls.append(span_text)
        return compare(claim_text, span_text, context_text)

    monkeypatch.setattr(evidence, "compare", counting)
    return calls


@pytest.fixture
def fuzzy_searches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = locate._bind_fuzzy

    def counting(folded_quote: str, index: SourceIndex, floor: float) -> Binding | None:
        calls.append(folded_quote)
        return real(folded_quote, index, floor)

    monkeypatch.setattr(locate, "_bind_fuzzy", counting)
    return calls


def test_a_long_chunk_is_not_compared_window_by_window(compare_calls: list[str]) -> None:
    chunk = long_chunk()
    claim = "Tarn Point Light was automated in 1987."
    windows = len(chunk_windows(chunk.text).spans)
    assert windows == 61  # 31 sentences and 30 pairs

    chosen = best_window(claim, chunk)

    assert chosen.quote == KEY
    assert len(compare_calls) <= 3, len(compare_calls)
    compare_calls.clear()
    assert chosen == reference(claim, chunk)


def test_the_fuzzy_search_is_skipped_when_a_window_covers_every_word(
    fuzzy_searches: list[str],
) -> None:
    chunk = long_chunk()
    # not in the chunk as written, so the quote would be searched for fuzzily
    claim = "In 1987 Tarn Point Light was automated."

    chosen = best_window(claim, chunk)

    assert chosen.coverage == 1.0
    assert fuzzy_searches == []
    assert chosen == reference(claim, chunk)


@pytest.mark.parametrize(
    ("claim", "key", "rival"),
    [
        # a fuzzy quote of the claim (a typo) against windows covering less
        ("Tarn Point Light was automatd in 1987 after the last keeper retired.", KEY, ""),
        # a span-initial pronoun standing for the claim's subject; the rival states
        # more of the claim's words itself
        (
            "Tarn Point Light anchors the headland.",
            "It anchors the headland and guides ships past the reef.",
            "Visits to Tarn Point Light were few.",
        ),
        # an antonym covers a claim word; the shorter rival states as many itself
        (
            "Visits to Tarn Point Light increased in 1990.",
            "Visits to Tarn Point Light decreased in 1990.",
            "Visits to Tarn Point Light were few.",
        ),
        # a shared reporting verb covers the claim's; the shorter rival states as many
        (
            "The harbour master announced that the light was automated.",
            "The harbour master reported that the light was automated.",
            "The harbour master saw the light automated.",
        ),
        # a negating prefix on the span's side ("unmanned" for "manned")
        ("The lighthouse is manned.", "The lighthouse is unmanned today.", "A lighthouse."),
        # nothing shared: the shortest window, as before
        ("Glaciers retreat in warm summers.", KEY, ""),
    ],
)
def test_the_window_chosen_is_the_one_comparing_every_window_chooses(
    claim: str, key: str, rival: str
) -> None:
    chunk = long_chunk(key, at=9)
    if rival:
        chunk = Chunk(chunk.id, f"{rival} {chunk.text}")

    chosen = best_window(claim, chunk)

    assert chosen == reference(claim, chunk)
    if rival:
        assert chosen.quote == key


def test_the_chunk_windows_are_read_once_per_claim_word() -> None:
    chunk = long_chunk()
    windows = chunk_windows(chunk.text)

    first = best_window("Tarn Point Light was automated in 1987.", chunk, windows)
    words = dict(windows.words)
    again = best_window("Tarn Point Light was automated in 1987.", chunk, windows)

    assert first == again
    assert windows.words == words  # nothing new to work out for the same words


def test_a_prefixed_lemma_keeps_its_prefix() -> None:
    """``opposed_concepts`` relies on it: an antonym formed with a negating prefix
    starts with that prefix once lemmatized."""
    words = ["used", "likely", "xes", "sses", "ness", "ing", "e", "ee", "able", "stopped"]
    for prefix in ANTONYM_PREFIXES:
        for word in words:
            assert lemma(prefix + word).startswith(prefix), prefix + word
