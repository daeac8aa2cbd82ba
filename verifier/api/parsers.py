"""The API's JSON parser: bounded in size and in nesting depth.

Reads at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (more is ``payload_too_large``,
however the body is framed), and refuses JSON nested deeper than ``MAX_JSON_DEPTH``
(no request of this API nests beyond a handful of levels; very deep nesting would
otherwise exhaust the interpreter's recursion limit while parsing, validating or
storing it). Both answer 400 with the API's JSON error body.
"""

from __future__ import annotations

import codecs
import json
from typing import IO, Any, Final

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from verifier.api.errors import ApiError

MAX_JSON_DEPTH: Final = 64


def payload_too_large() -> ApiError:
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return ApiError(
        "payload_too_large",
        f"The request body is larger than {limit} bytes.",
        details={"limit": limit},
    )


def json_depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


class BoundedJSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: IO[bytes] | None,
        media_type: str | None = None,
        parser_context: dict[str, Any] | None = None,
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
            data = json.loads(text, parse_constant=self._refuse_constant)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the body is nested too deeply.") from exc
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from exc
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_JSON_DEPTH} levels.")
        return data

    @staticmethod
    def _refuse_constant(name: str) -> None:
        raise ValueError(f"{name} is not valid JSON")
