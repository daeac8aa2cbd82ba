"""Input validation for text that will be hashed and bound against."""

from __future__ import annotations

from verifier.errors import ApplicationError

INVALID_UNICODE = "invalid_unicode"


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
