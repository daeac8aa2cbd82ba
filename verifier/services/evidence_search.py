"""Evidence search inside ONE source version: which 1–3 sentence window states the claim?

Used when a claim arrives without a quote. Candidate windows are runs of 1–3
consecutive sentences (``verifier.binding`` sentence spans of the original text, so
offsets are exact code points). Each window is scored by a blend of

* ``lexical`` — the share of the claim's content words (lemma + synonym concept,
  stopwords dropped) that occur in the window, and
* ``semantic`` — all-MiniLM-L6-v2 cosine similarity of claim and window,

minus a small penalty per extra sentence, so a longer window wins only when it adds
support. Windows scoring under ``EVIDENCE_FLOOR`` are not returned; no window at all
means ``no_evidence``. Window embeddings are cached per source-version hash in a
bounded in-process LRU (``EMBEDDING_CACHE_SIZE`` versions).

Measured with ``bench/evidence_search.py`` on ``../shared/eval/claims.jsonl`` (claim–source
pairs with gold ``rationale_spans``; a hit is a candidate overlapping a gold span). The
constants below are NOT yet grid-fitted: the ``--fit`` grid (lexical weight 0.2–0.7,
extra-sentence penalty {0.02, 0.05, 0.1}, floor 0–0.3 keeping ≥ 99 % of gold pairs) did
not finish inside the time box, because embedding every window of the file's 892
sources (~75k windows) costs ~20 CPU-minutes. Measured on a deterministic 15 % sample
(``--share 15``: 87 gold pairs, 43 from multi-sentence sources, 56 NOINFO):

* recall@1 0.851 / recall@3 0.989 over gold pairs;
  recall@1 0.721 / recall@3 1.000 over gold pairs from multi-sentence sources;
* gold pairs dropped by the floor: 1.1 %;
* no-evidence rate on NOINFO pairs: 3.6 %. NOINFO pairs in this data are topical
  retrieval neighbours of the claim, so the floor (rightly) keeps most of them and the
  judge decides; the floor refuses windows sharing almost nothing with the claim
  (on bench/fixtures/planted-v1.json: 8 of 12 misattributed claims, 0 true claims).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from verifier.binding import source_index
from verifier.judges.lexicon import concept
from verifier.text.stopwords import STOPWORDS
from verifier.text.words import LATIN_WORD_OR_NUMBER

if TYPE_CHECKING:
    from verifier.models import SourceVersion

# --- set by hand, measured by bench/evidence_search.py (see module docstring) --------
LEXICAL_WEIGHT = 0.4  # blend = LEXICAL_WEIGHT * lexical + (1 - LEXICAL_WEIGHT) * semantic
EXTRA_SENTENCE_PENALTY = 0.02  # per sentence beyond the first in a window
EVIDENCE_FLOOR = 0.2  # below this blended score a window is not evidence
# --------------------------------------------------------------------------------------
MAX_WINDOW_SENTENCES = 3
EMBEDDING_CACHE_SIZE = 32  # source versions whose window embeddings stay in memory
WINDOW_MAX_CHARS = 2000  # MiniLM reads ~256 word pieces; longer windows cost time only


@dataclass(frozen=True)
class EvidenceCandidateSpan:
    start: int
    end: int
    quote: str
    score: float
    lexical: float
    semantic: float


@dataclass(frozen=True)
class _Windows:
    spans: tuple[tuple[int, int], ...]
    sizes: tuple[int, ...]
    concepts: tuple[frozenset[str], ...]
    vectors: np.ndarray | None  # None when embeddings are unavailable
    positions: dict[tuple[int, int], int]  # (start, end) → row of ``vectors``


_lock = threading.Lock()
_cache: OrderedDict[str, _Windows] = OrderedDict()


def content_concepts(text: str) -> frozenset[str]:
    """Lemma/synonym concepts of the content words of ``text``."""
    out = set()
    for match in LATIN_WORD_OR_NUMBER.finditer(text):
        word = match.group().lower().replace("’", "'")
        if word in STOPWORDS:
            continue
        out.add(concept(word))
    return frozenset(out)


def _embed(texts: list[str]) -> np.ndarray | None:
    from verifier.embeddings import EmbeddingUnavailable, embed_texts

    try:
        return embed_texts([t[:WINDOW_MAX_CHARS] for t in texts])
    except EmbeddingUnavailable:
        return None


def _windows(text: str, sha256: str) -> _Windows:
    with _lock:
        cached = _cache.get(sha256)
        if cached is not None:
            _cache.move_to_end(sha256)
            return cached
    sentences = source_index(text, sha256).sentences
    spans: list[tuple[int, int]] = []
    sizes: list[int] = []
    for i in range(len(sentences)):
        for size in range(1, MAX_WINDOW_SENTENCES + 1):
            if i + size > len(sentences):
                break
            spans.append((sentences[i][0], sentences[i + size - 1][1]))
            sizes.append(size)
    texts = [text[s:e] for s, e in spans]
    windows = _Windows(
        spans=tuple(spans),
        sizes=tuple(sizes),
        concepts=tuple(content_concepts(t) for t in texts),
        vectors=_embed(texts) if texts else None,
        positions={span: i for i, span in enumerate(spans)},
    )
    with _lock:
        _cache[sha256] = windows
        _cache.move_to_end(sha256)
        while len(_cache) > EMBEDDING_CACHE_SIZE:
            _cache.popitem(last=False)
    return windows


def rank_windows(
    *,
    text: str,
    sha256: str,
    claim_text: str,
    limit: int = 5,
    lexical_weight: float = LEXICAL_WEIGHT,
    extra_sentence_penalty: float = EXTRA_SENTENCE_PENALTY,
    floor: float = EVIDENCE_FLOOR,
    claim_vector: np.ndarray | None = None,
) -> list[EvidenceCandidateSpan]:
    """Best windows of ``text`` for ``claim_text``, best first, at most ``limit``.

    ``claim_vector`` is the claim text's embedding when the caller already has it (a
    batch embeds all its claims at once); otherwise it is computed here.

    Overlapping windows are suppressed (a window overlapping a better one is skipped),
    so the runners-up are genuine alternatives. Pure apart from the embedding model.
    """
    if limit <= 0 or not text.strip() or not claim_text.strip():
        return []
    windows = _windows(text, sha256)
    if not windows.spans:
        return []
    claim_concepts = content_concepts(claim_text)
    if windows.vectors is not None:
        claim_vectors = (
            _embed([claim_text]) if claim_vector is None else claim_vector.reshape(1, -1)
        )
        semantic = (
            windows.vectors @ claim_vectors[0]
            if claim_vectors is not None
            else np.zeros(len(windows.spans))
        )
    else:
        semantic = np.zeros(len(windows.spans), dtype=np.float32)
    scored: list[tuple[float, int, float, float]] = []
    for i, concepts in enumerate(windows.concepts):
        lexical = len(claim_concepts & concepts) / len(claim_concepts) if claim_concepts else 0.0
        sem = float(max(0.0, semantic[i]))
        score = (
            lexical_weight * lexical
            + (1.0 - lexical_weight) * sem
            - extra_sentence_penalty * (windows.sizes[i] - 1)
        )
        if score >= floor:
            scored.append((score, i, lexical, sem))
    scored.sort(key=lambda row: (-row[0], windows.spans[row[1]][0], windows.sizes[row[1]]))
    out: list[EvidenceCandidateSpan] = []
    taken: list[tuple[int, int]] = []
    for score, i, lexical, sem in scored:
        start, end = windows.spans[i]
        if any(start < b and a < end for a, b in taken):
            continue
        taken.append((start, end))
        out.append(
            EvidenceCandidateSpan(
                start=start,
                end=end,
                quote=text[start:end],
                score=round(min(1.0, max(0.0, score)), 4),
                lexical=round(lexical, 4),
                semantic=round(sem, 4),
            )
        )
        if len(out) >= limit:
            break
    return out


def evidence_search(
    *,
    version: SourceVersion,
    claim_text: str,
    limit: int = 5,
    claim_vector: np.ndarray | None = None,
) -> list[EvidenceCandidateSpan]:
    """Candidate evidence windows for ``claim_text`` inside ``version`` only, best first."""
    return rank_windows(
        text=version.text,
        sha256=version.sha256,
        claim_text=claim_text,
        limit=limit,
        claim_vector=claim_vector,
    )


def cached_span_vectors(
    *, text: str, sha256: str, spans: Iterable[tuple[int, int]]
) -> dict[str, np.ndarray]:
    """Embeddings evidence search already computed for spans that are exactly one of its
    windows (a span it bound), keyed by the span's text as the judge embeds it; spans
    of a version not in the cache, or not a window, are simply absent."""
    with _lock:
        windows = _cache.get(sha256)
    if windows is None or windows.vectors is None:
        return {}
    out: dict[str, np.ndarray] = {}
    for start, end in spans:
        row = windows.positions.get((start, end))
        if row is not None:
            out[text[start:end][:WINDOW_MAX_CHARS]] = windows.vectors[row]
    return out


def embed_claim_texts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Embeddings of many claim texts in one batch, keyed by text, exactly as
    ``rank_windows`` would compute them one by one; empty when the model is unavailable."""
    unique = list(dict.fromkeys(t for t in texts if t.strip()))
    vectors = _embed(unique) if unique else None
    if vectors is None:
        return {}
    return dict(zip(unique, vectors, strict=True))
