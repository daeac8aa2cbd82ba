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

A body is read in the charset its ``Content-Type`` names, and only a character set is one:
``charset=zlib`` (or ``bz2``, ``base64``, ``rot13``) names a bytes-to-bytes codec, which
would decompress the body after its size was checked (a small request growing without
bound) or fail as a server error; ``punycode``, ``idna`` and the escape codecs transform
text (punycode's decoder takes time quadratic in the body). Each is a ``400
malformed_request``, as a charset that does not decode the body is. A form body's names
and values must be text in that charset too, raw or percent-escaped: Django's reader puts
U+FFFD in place of bytes that do not decode (or reads the whole body as Latin-1), so the
text stored would not be the text sent; such a field is ``invalid_text`` naming it. A
multipart body's field values are read by ``StrictMultiPartParser`` (Django's, reading
each value's bytes strictly in the charset), here and in the console's forms
(``verifier.input_guard``): one rule.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Mapping
from typing import IO, Any, Final
from urllib.parse import unquote

from django.conf import settings
from django.http import QueryDict
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from django.utils.datastructures import MultiValueDict
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles

from verifier.api.errors import BODY_FIELD, ApiError
from verifier.untrusted_input import (
    MAX_JSON_DEPTH,
    DuplicateKey,
    JsonTooDeep,
    loads_bounded,
    printable,
    unstorable_location,
)

__all__ = [
    "MAX_JSON_DEPTH",
    "BoundedJSONParser",
    "CheckedFormParser",
    "CheckedMultiPartParser",
    "StrictMultiPartParser",
    "UndecodableFormField",
    "undecodable_form_field",
]


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


# Codecs Python counts as text encodings that are no character set: transforms of text.
# punycode's decoder is quadratic (a body of 2,000,000 letters took 66 s of CPU, with the
# interpreter's lock held; a 20 MB one hours), and idna's runs it on each label.
NOT_CHARSETS: Final = frozenset({"punycode", "idna", "unicode-escape", "raw-unicode-escape"})


def charset_problem(encoding: str) -> str | None:
    """Why ``encoding`` (the charset a ``Content-Type`` names) is not read as one: no such
    codec, a bytes-to-bytes codec (``zlib``, ``bz2``, ``base64``, which ``str.encode``
    refuses and ``codecs.decode`` would run on the body), or a text transform
    (``NOT_CHARSETS``); None for a character set. The console's forms meet the same rule
    (``verifier.input_guard``)."""
    try:
        "".encode(encoding)
        name = codecs.lookup(encoding).name
    except (LookupError, UnicodeError, ValueError):
        name = ""
    if not name or name in NOT_CHARSETS:
        return f'Unsupported charset "{encoding}" in request Content-Type header.'
    return None


def _text_encoding(parser_context: Mapping[str, Any] | None) -> str:
    """The charset the ``Content-Type`` names (else ``DEFAULT_CHARSET``) when it is a
    character set (``charset_problem``); ``ParseError`` otherwise."""
    encoding = str((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET)
    problem = charset_problem(encoding)
    if problem is not None:
        raise ParseError(problem)
    return encoding


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
        encoding = _text_encoding(parser_context)
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


def undecodable_form_field(raw: bytes, encoding: str) -> str | None:
    """Where a form body is not text in ``encoding``: ``body`` when its bytes are not, else
    the name of the first field whose name or value, percent-escapes decoded, is not;
    None when every field reads as text."""
    try:
        body = raw.decode(encoding)
    except UnicodeError:
        return BODY_FIELD
    for pair in body.split("&"):
        name, _, value = (part.replace("+", " ") for part in pair.partition("="))
        try:
            unquote(name, encoding, errors="strict")
            unquote(value, encoding, errors="strict")
        except UnicodeError:
            return printable(unquote(name, encoding, errors="replace"))
    return None


def undecodable_text(where: str, encoding: str) -> ApiError:
    """``invalid_text`` (400) for a form field ``where`` whose bytes are not ``encoding``
    text."""
    return ApiError(
        "invalid_text",
        f"{where} is not {encoding} text (bytes that do not decode); it cannot be stored.",
        details={"field": where},
    )


# The charset a multipart body is parsed in by Django: one byte a character, every byte
# one, so a field value's text gives its bytes back exactly.
_BYTES_AS_TEXT: Final = "iso-8859-1"


class UndecodableFormField(ValueError):
    """A multipart field ``name`` whose value number ``index`` (0 for the first) is not
    text in the body's charset ``encoding``."""

    def __init__(self, name: str, index: int, encoding: str) -> None:
        super().__init__(f"{name}[{index}] is not {encoding} text")
        self.name, self.index, self.encoding = printable(name), index, encoding


class StrictMultiPartParser(DjangoMultiPartParser):
    """Django's multipart parser, but a field's name and value are read strictly in the
    body's charset: Django decodes them with ``errors="replace"`` (U+FFFD for bytes that
    do not decode: the text stored would not be the text sent). Django reads the parts in
    Latin-1 here, which gives every name's and value's bytes back; each is then decoded
    in the charset, and one that does not decode raises ``UndecodableFormField``. File
    names and the names of file fields are read as Django reads them (in the charset,
    bytes that do not decode replaced), and files as bytes."""

    def __init__(
        self,
        META: Mapping[str, Any],
        input_data: Any,
        upload_handlers: Any,
        encoding: str | None = None,
    ) -> None:
        self._text_encoding = encoding or settings.DEFAULT_CHARSET
        super().__init__(META, input_data, upload_handlers, _BYTES_AS_TEXT)

    def _text(self, read: str, errors: str = "strict") -> str:
        """``read`` (what Django read in Latin-1) read in the body's charset."""
        return read.encode(_BYTES_AS_TEXT).decode(self._text_encoding, errors)

    def sanitize_file_name(self, file_name: str) -> str | None:
        return super().sanitize_file_name(self._text(file_name, "replace"))

    def parse(self) -> tuple[QueryDict, MultiValueDict[str, Any]]:
        post, files = super().parse()
        uploads: MultiValueDict[str, Any] = MultiValueDict()
        for read_name, read_uploads in files.lists():
            name = self._text(read_name, "replace")
            for upload in read_uploads:
                upload.field_name = name
                uploads.appendlist(name, upload)
        strict = QueryDict(mutable=True, encoding=self._text_encoding)
        for read_name, values in post.lists():
            for index, value in enumerate(values):
                try:
                    strict.appendlist(self._text(read_name), self._text(value))
                except UnicodeError:
                    for _, opened in uploads.lists():
                        for upload in opened:
                            upload.close()
                    name = self._text(read_name, "replace")
                    raise UndecodableFormField(name, index, self._text_encoding) from None
        strict._mutable = False
        return strict, uploads


class CheckedFormParser(parsers.FormParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = _text_encoding(parser_context)
        raw = stream.read()
        try:
            data = QueryDict(raw, encoding=encoding)
        except UnicodeError as exc:  # a text encoding that cannot read it (punycode, idna)
            raise ParseError(f"The form body is not {encoding} text.") from exc
        where = undecodable_form_field(raw, encoding)
        if where is not None:
            raise undecodable_text(where, encoding)
        refuse_unstorable(dict(data.lists()))
        return data


class CheckedMultiPartParser(parsers.MultiPartParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = _text_encoding(parser_context)
        request = (parser_context or {})["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        try:
            data, uploads = StrictMultiPartParser(
                meta, stream, request.upload_handlers, encoding
            ).parse()
        except UndecodableFormField as exc:
            raise undecodable_text(exc.name, encoding) from exc
        except MultiPartParserError as exc:
            raise ParseError(f"Multipart form parse error - {exc}") from exc
        except UnicodeError as exc:  # a character set that cannot read it
            raise ParseError(f"The multipart body is not {encoding} text.") from exc
        parsed = DataAndFiles(data, uploads)
        refuse_unstorable(dict(parsed.data.lists()))
        # every file of every field (values() would give only the last file of a field)
        refuse_unstorable([f.name for _, files in parsed.files.lists() for f in files])
        return parsed
