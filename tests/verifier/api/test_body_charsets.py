"""The charset a body's ``Content-Type`` names, and form bodies whose bytes are not text
in it: a ``400`` with the API's error body naming the field, never a server error, never
a decompressed body, never a text stored other than the one sent."""

from __future__ import annotations

import bz2
import json
import zlib
from urllib.parse import quote

import pytest

from verifier.models import Source, SourceVersion

pytestmark = pytest.mark.django_db

SOURCES = "/connect/v1/sources"
TEXT = "The harbour wall 🚢 is 412 metres long."


def _post(api, body: bytes, content_type: str):
    # ``generic`` sends the bytes as they are (``post`` would re-encode them in the charset)
    return api.generic("POST", SOURCES, data=body, content_type=content_type)


def _refused(response, code: str, field: str) -> None:
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == (code, field), error
    assert not Source.objects.exists()
    assert not SourceVersion.objects.exists()


def test_a_json_body_in_a_compression_charset_is_refused_not_decompressed(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 4096
    big = json.dumps({"ref": "source:bomb", "text": "The wall is long. " * 1000}).encode()
    assert len(big) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE  # over the cap once decompressed
    for charset, packed in (("zlib", zlib.compress(big)), ("bz2", bz2.compress(big))):
        assert len(packed) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        answer = _post(api, packed, f"application/json; charset={charset}")
        _refused(answer, "malformed_request", "body")
        assert f'Unsupported charset "{charset}"' in answer.json()["error"]["message"]


@pytest.mark.parametrize("charset", ["rot13", "base64", "hex", "bz2", "undefined"])
def test_a_json_body_in_a_charset_that_is_no_text_encoding_is_a_400(api, charset):
    body = json.dumps({"ref": "source:a", "text": TEXT}).encode()
    _refused(_post(api, body, f"application/json; charset={charset}"), "malformed_request", "body")


@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-www-form-urlencoded; charset=punycode",
        "application/x-www-form-urlencoded; charset=zlib",
        "multipart/form-data; boundary=XX; charset=punycode",
        "multipart/form-data; boundary=XX; charset=idna",
    ],
)
def test_a_form_body_in_a_charset_that_cannot_read_it_is_a_400(api, content_type):
    if content_type.startswith("multipart"):
        body = (
            b'--XX\r\nContent-Disposition: form-data; name="ref"\r\n\r\nsource:a\r\n'
            b'--XX\r\nContent-Disposition: form-data; name="text"\r\n\r\nThe wall\xff\r\n--XX--\r\n'
        )
    else:
        body = b"ref=source%3Aa&text=The+wall+is+long."
    _refused(_post(api, body, content_type), "malformed_request", "body")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        # percent-escaped bytes that are no UTF-8: a lone surrogate's, a stray 0xFF
        (b"ref=source%3Aa&text=The+wall%ED%A0%80is+long.", "text"),
        (b"ref=source%3Aa&text=The+wall+is+long.&title=Wall%FF", "title"),
        # raw bytes that are no UTF-8: Django would read the whole body as Latin-1
        (b"ref=source%3Aa&text=The+wall+\xc3+is+long.", "body"),
    ],
)
def test_form_bytes_that_are_not_utf8_are_refused_naming_the_field(api, body, field):
    answer = _post(api, body, "application/x-www-form-urlencoded")
    _refused(answer, "invalid_text", field)
    assert "not utf-8 text" in answer.json()["error"]["message"]


def test_a_form_body_in_utf8_is_stored_character_for_character(api):
    body = f"ref=source%3Aform&text={quote(TEXT)}".encode("ascii")
    answer = _post(api, body, "application/x-www-form-urlencoded")
    assert answer.status_code == 201, answer.content[:300]
    assert SourceVersion.objects.get().text == TEXT
    assert answer.json()["version"]["length"] == len(TEXT)


def test_a_form_body_over_the_cap_is_payload_too_large(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    body = b"ref=source%3Aa&text=" + b"wall+" * 400
    _refused(_post(api, body, "application/x-www-form-urlencoded"), "payload_too_large", "body")
