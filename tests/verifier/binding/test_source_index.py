"""Tests for the per-version index and its offset map."""

from __future__ import annotations

from hypothesis import given, settings

from tests.verifier.binding.strategies import texts
from verifier.binding import INDEX_CACHE_SIZE, clear_index_cache, sha256_hex, source_index
from verifier.binding.normalization import fold


def test_the_index_is_cached_per_hash() -> None:
    clear_index_cache()
    text = "Some source text. Second sentence."
    first = source_index(text)
    assert source_index(text) is first
    assert source_index(str(text + " ")[:-1], sha256_hex(text)) is first
    assert first.sha256 == sha256_hex(text)
    assert first.sentences == [(0, 17), (18, 34)]


def test_a_wrong_hash_for_a_different_text_is_not_served_the_cached_index() -> None:
    clear_index_cache()
    sha = sha256_hex("first text")
    source_index("first text", sha)
    assert source_index("other text", sha).text == "other text"


def test_the_cache_is_bounded() -> None:
    clear_index_cache()
    first = source_index("text number -1")
    for i in range(INDEX_CACHE_SIZE + 10):
        source_index(f"text number {i}")
    assert source_index("text number -1".upper().lower()) is not first


@settings(max_examples=300, deadline=None)
@given(texts)
def test_the_normalized_text_maps_back_to_whole_characters(text: str) -> None:
    index = source_index(text)
    normalized = index.normalized
    assert normalized.strip(" ") == fold(text)
    offsets = index.offsets
    for ns in range(len(normalized)):
        start, end = index.to_original(ns, ns + 1)
        assert 0 <= start < end <= len(text)
        if offsets.is_aligned(ns, ns + 1) and normalized[ns] != " ":
            assert fold(text[start:end]) == normalized[ns]


def test_ascii_text_takes_the_identity_map() -> None:
    index = source_index("Plain ASCII text, single spaces.")
    assert index.offsets.identity
    assert index.normalized == "plain ascii text, single spaces."
