"""Every request's id, so a client's error can be matched to the server's log.

``RequestIdMiddleware`` (first in ``MIDDLEWARE``) takes the client's ``X-Request-ID``
when it is safe to log and echo — 1 to ``MAX_LENGTH`` characters of ``[A-Za-z0-9._-]``,
as a proxy or client library sends — and otherwise makes one (32 hex digits). It
answers it in the response's ``X-Request-ID`` header, keeps it for the request's
thread (``current_request_id``), and the API's 500 and 503 bodies carry it as
``details.request_id`` (``verifier.views.server_error``). ``RequestIdLogFilter`` puts it
on every log record as ``record.request_id`` ("-" outside a request: Celery tasks,
commands), and ``RequestIdFormatter`` starts the line with ``[request <id>]``, so the
traceback of a 500 names the id the client was given.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from typing import Final

from django.http import HttpRequest, HttpResponse

HEADER: Final = "X-Request-ID"
MAX_LENGTH: Final = 128
NO_REQUEST: Final = "-"
_SAFE: Final = re.compile(rf"[A-Za-z0-9._-]{{1,{MAX_LENGTH}}}")
_current: ContextVar[str] = ContextVar("spanproof_request_id", default=NO_REQUEST)


def request_id_from(sent: str | None) -> str:
    """The client's id when it is safe to log and echo back, else a new one."""
    if sent is not None and _SAFE.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


def current_request_id() -> str:
    """The id of the request this thread is answering ("-" outside a request)."""
    return _current.get()


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_from(request.headers.get(HEADER))
        token = _current.set(request_id)
        try:
            response = self.get_response(request)
        finally:
            _current.reset(token)
        response[HEADER] = request_id
        return response


class RequestIdLogFilter(logging.Filter):
    """Every record gets ``request_id``: the request being answered, or "-"."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _current.get()
        return True


class RequestIdFormatter(logging.Formatter):
    """``[request <id>] `` before a record logged while answering a request."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        request_id = getattr(record, "request_id", NO_REQUEST)
        return text if request_id == NO_REQUEST else f"[request {request_id}] {text}"
