"""Per-source-version index: folded text, offset map and sentences, cached by hash."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from verifier.binding.normalization import OffsetMap, fold_with_offsets
from verifier.text.sentences import sentence_spans

# Source versions whose index stays in memory (LRU). A 20 KB source costs roughly
# 3x its size; the bound keeps a few 10 MB sources from pinning unbounded memory.
INDEX_CACHE_SIZE = 64
# Recently used text objects remembered by identity, so ``bind(..., index=None)``
# against the same ``str`` object does not rehash it for every quote.
_RECENT_BY_IDENTITY = 8


def sha256_hex(text: str) -> str:
    """SHA-256 hex digest of the UTF-8 bytes of ``text``.

    Raises ``UnicodeEncodeError`` for lone surrogates; see ``validate_text``.
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _cache_key(text: str) -> str:
    # Same as sha256_hex for valid text; tolerant of lone surrogates so binding
    # never raises on a ``str``.
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class SourceIndex:
    """Everything binding needs about one source version, built once.

    ``text`` is the original text, ``normalized`` its fold (whitespace collapsed,
    not stripped), ``offsets`` maps normalized positions to original ones, and
    ``sentences`` (computed on first use) are sentence spans of the original.
    """

    __slots__ = ("_sentences", "normalized", "offsets", "sha256", "text")

    def __init__(self, text: str, sha256: str) -> None:
        self.text = text
        self.sha256 = sha256
        self.normalized, self.offsets = fold_with_offsets(text)
        self._sentences: list[tuple[int, int]] | None = None

    @property
    def sentences(self) -> list[tuple[int, int]]:
        if self._sentences is None:
            self._sentences = sentence_spans(self.text)
        return self._sentences

    def to_original(self, ns: int, ne: int) -> tuple[int, int]:
        """Original ``[start, end)`` covering normalized ``[ns, ne)``."""
        return self.offsets.to_original(ns, ne)

    def __repr__(self) -> str:
        return f"SourceIndex(sha256={self.sha256[:12]}..., len={len(self.text)})"


_lock = threading.Lock()
_cache: OrderedDict[str, SourceIndex] = OrderedDict()
_recent: list[SourceIndex] = []


def source_index(text: str, sha256: str | None = None) -> SourceIndex:
    """The (LRU-cached) index of ``text``; ``sha256`` is computed when omitted."""
    if sha256 is None:
        with _lock:
            for index in _recent:
                if index.text is text:
                    return index
        sha256 = _cache_key(text)
    with _lock:
        cached = _cache.get(sha256)
        if cached is not None and cached.text == text:
            _cache.move_to_end(sha256)
            _remember(cached)
            return cached
    index = SourceIndex(text, sha256)
    with _lock:
        _cache[sha256] = index
        _cache.move_to_end(sha256)
        while len(_cache) > INDEX_CACHE_SIZE:
            _cache.popitem(last=False)
        _remember(index)
    return index


def _remember(index: SourceIndex) -> None:
    if _recent and _recent[0] is index:
        return
    if index in _recent:
        _recent.remove(index)
    _recent.insert(0, index)
    del _recent[_RECENT_BY_IDENTITY:]


def clear_index_cache() -> None:
    """Drop every cached index (tests and benchmarks)."""
    with _lock:
        _cache.clear()
        _recent.clear()


__all__ = ["INDEX_CACHE_SIZE", "OffsetMap", "SourceIndex", "clear_index_cache", "sha256_hex"]
