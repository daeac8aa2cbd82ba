"""The API's parsers: bounded in size and in nesting depth, storable text only.

The JSON parser reads at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (more is
``payload_too_large``, however the body is framed), and refuses JSON nested deeper than
``MAX_JSON_DEPTH`` (no request of this API nests beyond a handful of levels; very deep
nesting would otherwise exhaust the interpreter's recursion limit while parsing,
validating or storing it), and an object that gives one key twice (``duplicate_field``
naming it: which of the two would count is a guess). Every parser (JSON, form,
multipart) refuses a key or value holding a NUL or a lone surrogate (``invalid_text``,
with where it was): PostgreSQL stores neither, and a lone surrogate cannot even be
written into the error body that would echo it. All answer 400 with the API's JSON error body
(``verifier.untrusted_input`` holds the rules).
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from verifier.api.errors import BODY_FIELD, ApiError
from verifier.untrusted_input import (
    MAX_JSON_DEPTH,
    DuplicateKey,
    JsonTooDeep,
    loads_bounded,
    unstorable_location,
)

__all__ = ["MAX_JSON_DEPTH", "BoundedJSONParser", "CheckedFormParser", "CheckedMultiPartParser"]


def payload_too_large() -> ApiError:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return ApiError(
        "payload_too_large",
        f"The request body is larger than {limit} bytes.",
        details={"field": BODY_FIELD, "limit": limit},
    )


def refuse_unstorable(data: Any) -> None:
    """``invalid_text`` (400) when a key or value of ``data`` cannot be stored."""
    found = unstorable_location(data)
    if found is not None:
        where, problem = found
        raise ApiError(
            "invalid_text", f"{where} {problem}; it cannot be stored.", details={"field": where}
        )


def _parse_problem(exc: ValueError) -> str:
    """What the JSON decoder said, in the client's terms: an integer of more digits than
    Python converts says so, without the interpreter's advice to raise its limit."""
    said = str(exc)
    if "integer string conversion" in said:
        return f"a number has more than {sys.get_int_max_str_digits()} digits."
    return said


class BoundedJSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        if stream is None:
            return None
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read() if limit is None else stream.read(limit + 1)
        if limit is not None and len(raw) > limit:
            raise payload_too_large()
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
            data = loads_bounded(text, what="the request body", finite=True, unique_keys=True)
        except DuplicateKey:
            raise  # an ApplicationError: 400 duplicate_field naming the key
        except JsonTooDeep as exc:
            message = f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels."
            raise ParseError(message) from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {_parse_problem(exc)}") from exc
        refuse_unstorable(data)
        return data


class CheckedFormParser(parsers.FormParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        data = super().parse(stream, media_type, parser_context)
        refuse_unstorable(dict(data.lists()))
        return data


class CheckedMultiPartParser(parsers.MultiPartParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        refuse_unstorable(dict(parsed.data.lists()))
        # every file of every field (values() would give only the last file of a field)
        refuse_unstorable([f.name for _, files in parsed.files.lists() for f in files])
        return parsed
