"""The one application error type.

``ApplicationError(code, message, details=None)`` is what the application raises for a
request it refuses: ``code`` is stable and machine-readable, ``message`` is for people,
``details`` locates the problem (``{}`` when there is nothing to add). Each area's input
errors (``IngestInputError``, ``RetrievalInputError``, ``ReviewError``, ...) subclass it.

The API's exception handler (``verifier.api.errors.api_exception_handler``) turns one
into ``{"error": {"code", "message", "details"}}`` with its ``status_code`` (400 unless
a subclass says otherwise, e.g. 409 for a conflict with what is stored), so API views let
them propagate; the consoles show ``message`` as a form error. Free of Django, so the pure
cores can raise it too.
"""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    status_code: int = 400

    def __init__(
        self, code: str, message: str, details: Any = None, *, status_code: int | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}
        if status_code is not None:  # an error passed on under another area's type
            self.status_code = status_code
