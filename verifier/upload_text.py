"""An uploaded file read as text, the one way every console form (and ``manage.py
ingest``) does it.

The size is checked before anything is read (``max_bytes``), the bytes are decoded as
UTF-8 unless they start with a UTF-16 or UTF-32 byte-order mark, which names its
encoding (a mark is read, never guessed; a UTF-8 mark is kept in the text, as it always
was, so the same file hashes the same), and, where the form asks, a NUL character is
refused (PostgreSQL cannot store one; the console's request guard checks form fields,
not file contents). Each refusal is a form error with the form's own message, so a page
says which file and why.
"""

from __future__ import annotations

import codecs
from typing import Final

from django import forms
from django.core.files.uploadedfile import UploadedFile

# Longest first: a UTF-32 LE mark starts with the UTF-16 LE one.
_MARKED_ENCODINGS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def decode_text(data: bytes) -> str:
    """``data`` as text: UTF-16 or UTF-32 where a byte-order mark says so (the mark
    dropped), else UTF-8. ``UnicodeDecodeError`` when it is neither (Latin-1, binary)."""
    for mark, encoding in _MARKED_ENCODINGS:
        if data.startswith(mark):
            return data.decode(encoding)
    return data.decode("utf-8")


def uploaded_text(
    upload: UploadedFile[bytes],
    *,
    max_bytes: int,
    too_large: str,
    not_utf8: str,
    has_nul: str | None = None,
) -> str:
    """The upload's text; ``forms.ValidationError`` with ``too_large`` when it is over
    ``max_bytes``, ``not_utf8`` when it does not decode, ``has_nul`` (when given) when it
    holds a NUL character."""
    if (upload.size or 0) > max_bytes:
        raise forms.ValidationError(too_large)
    data: bytes = upload.read()
    try:
        text = decode_text(data)
    except UnicodeDecodeError as exc:
        raise forms.ValidationError(not_utf8) from exc
    if has_nul is not None and "\x00" in text:
        raise forms.ValidationError(has_nul)
    return text
