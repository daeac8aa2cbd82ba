"""An uploaded file read as text, the one way every console form does it.

The size is checked before anything is read (``max_bytes``), the bytes are decoded as
UTF-8 (nothing else is guessed), and, where the form asks, a NUL character is refused
(PostgreSQL cannot store one; the console's request guard checks form fields, not file
contents). Each refusal is a form error with the form's own message, so a page says
which file and why.
"""

from __future__ import annotations

from django import forms
from django.core.files.uploadedfile import UploadedFile


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
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise forms.ValidationError(not_utf8) from exc
    if has_nul is not None and "\x00" in text:
        raise forms.ValidationError(has_nul)
    return text
