"""Logging filters the settings' ``LOGGING`` installs on its handlers.

Django logs every 4xx answer to ``django.request`` as a warning, and a refusal raised
as an exception (a 403 ``PermissionDenied``, a 404 ``Http404``) with its traceback: a
reviewer who opens an admin page writes some forty lines of stack to the server log,
which buries the errors worth reading. ``ClientErrorsInOneLine`` keeps the one line
(method, path, status) of a client error and drops its traceback; a 5xx keeps it."""

from __future__ import annotations

import logging


class ClientErrorsInOneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if record.name.startswith("django.") and isinstance(status, int) and status < 500:
            record.exc_info = None
            record.exc_text = None
        return True
