"""A span of a source version's text, cut out by the database from the version's chunks
(``SourceVersionChunk``, migration 0018) instead of from the whole text."""

from __future__ import annotations

from django.db.models import Func, TextField


class VersionSpan(Func):
    """``spanproof_version_span(version_id, start, end)``: characters ``[start, end)`` of
    the version's text — what ``Substr(text, start + 1, end - start)`` gives — read from
    the one or two chunks holding them, so the cost does not grow with the offset."""

    function = "spanproof_version_span"
    output_field = TextField()
    arity = 3
