"""Input validation for text that will be hashed and bound against."""

from __future__ import annotations

from verifier.binding.boundaries import has_word_char
from verifier.errors import ApplicationError

INVALID_UNICODE = "invalid_unicode"
INVALID_QUOTE = "invalid_quote"


class BindingInputError(ApplicationError, ValueError):
    """Text that cannot be bound (``code`` says why, e.g. ``"invalid_unicode"``)."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(code, message)


def validate_text(s: str, *, what: str) -> None:
    """Raise :class:`BindingInputError` unless ``s`` encodes to UTF-8.

    Lone surrogates (e.g. from ``surrogateescape``-decoded bytes or a broken JSON
    ``\\ud800`` escape) have no UTF-8 encoding, so such text has no SHA-256 of its
    UTF-8 bytes and cannot be a source version or a quote.
    """
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise BindingInputError(
            f"{what} is not valid Unicode: {exc.reason} at code point {exc.start}",
            code=INVALID_UNICODE,
        ) from exc


def validate_quote(quote: str) -> None:
    """Raise :class:`BindingInputError` (``invalid_quote``) unless ``quote`` can bind.

    A quote must hold at least one letter or digit (any script): an empty or
    whitespace-only quote, or one of punctuation and symbols alone ("."), says nothing
    about where its evidence is. Binding then takes its words whole (``bind`` never
    binds a span that starts or ends inside a word), so the least a quote binds is one
    whole word. A quote that is not valid Unicode is ``invalid_quote`` too.
    """
    if not quote or quote.isspace():
        raise BindingInputError("The quote is empty.", code=INVALID_QUOTE)
    if not has_word_char(quote):
        raise BindingInputError(
            "The quote has no letter or digit; quote at least one whole word of the source.",
            code=INVALID_QUOTE,
        )
    try:
        validate_text(quote, what="the quote")
    except BindingInputError as exc:
        raise BindingInputError(exc.message, code=INVALID_QUOTE) from exc
