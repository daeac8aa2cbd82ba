"""The API's JSON renderer (``verifier.api.renderers``): DRF's output, written by orjson."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from django.utils.functional import lazy
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from verifier.api.renderers import FastJSONRenderer

# JSON-shaped values without floats: for these DRF's bytes and ours must be identical
# (floats are equal as numbers; the two encoders spell some exponents differently).
_TEXT = st.text(st.characters(exclude_categories=["Cs"]))
_SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | _TEXT
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5),
    max_leaves=30,
)


def both(data, media_type: str | None = None) -> tuple[bytes, bytes]:
    return (
        FastJSONRenderer().render(data, media_type, {}),
        JSONRenderer().render(data, media_type, {}),
    )


@given(_JSON)
def test_same_bytes_as_drf(data):
    fast, drf = both(data)
    assert fast == drf


@given(
    st.recursive(
        _SCALARS | st.floats(allow_nan=False, allow_infinity=False),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5),
        max_leaves=30,
    )
)
def test_same_values_as_drf_with_floats(data):
    fast, drf = both(data)
    assert fast == drf or json.loads(fast) == json.loads(drf)


def test_line_and_paragraph_separators_are_escaped():
    fast, drf = both({"text": "one\u2028two\u2029three"})
    assert fast == drf == b'{"text":"one\\u2028two\\u2029three"}'


def test_types_orjson_does_not_write_keep_drf_format():
    lazy_text = lazy(lambda: "lazy", str)()
    data = {
        "at": datetime(2026, 6, 10, 12, 4, 11, 123456, tzinfo=UTC),
        "day": date(2026, 6, 10),
        "clock": time(12, 4, 11),
        "span": timedelta(seconds=90),
        "id": uuid.UUID("3f6f9a3a-0000-4000-8000-000000000001"),
        "amount": Decimal("1.25"),
        "lazy": lazy_text,
        "pair": (1, 2),
        "keys": {1: "int key"},
    }
    fast, drf = both(data)
    assert fast == drf
    assert json.loads(fast)["at"] == "2026-06-10T12:04:11.123456Z"


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1])
def test_integers_beyond_64_bits_take_drf_path(value):
    fast, drf = both({"n": value})
    assert fast == drf == f'{{"n":{value}}}'.encode()


def test_unknown_type_raises_drf_error():
    with pytest.raises(TypeError):
        FastJSONRenderer().render({"x": object()}, None, {})


def test_indent_requested_renders_like_drf():
    data = {"a": [1, {"b": "c"}]}
    fast, drf = both(data, "application/json; indent=4")
    assert fast == drf
    assert b"\n    " in fast


def test_none_renders_empty_body():
    assert FastJSONRenderer().render(None) == b""


def test_api_answers_through_it(api, delta):
    response = api.post(
        "/connect/v1/retrieve", {"query": "Where does sediment settle?"}, "application/json"
    )
    assert response.status_code == 200
    assert isinstance(response.accepted_renderer, FastJSONRenderer)
    assert response["Content-Type"] == "application/json"
    assert json.loads(response.content)["trace_id"]
