"""Example tests for validate_text and sha256_hex."""

from __future__ import annotations

import hashlib

import pytest

from verifier.binding import BindingInputError, sha256_hex, validate_text


@pytest.mark.parametrize("text", ["lone \ud800 high", "lone \udfff low", "\udcff"])
def test_lone_surrogates_are_invalid_unicode(text: str) -> None:
    with pytest.raises(BindingInputError) as raised:
        validate_text(text, what="quote")
    assert raised.value.code == "invalid_unicode"
    assert "quote" in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("text", ["", "plain", "\U0001f600 emoji", "\u05e9\u05dc\u05d5\u05dd"])
def test_valid_text_passes(text: str) -> None:
    validate_text(text, what="source text")


def test_sha256_hex_hashes_the_utf8_bytes() -> None:
    text = "caf\u00e9 \U0001f600"
    assert sha256_hex(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()
