"""One exception type, one handler: every API error is {"error": {code, message, details}}.

Any ``ApplicationError`` (``verifier.errors``: the services' input errors) that leaves an
API view becomes that body with its ``status_code`` (400 unless the error class says
otherwise), so views do not catch and convert them;
``ApiError`` is the ApplicationError an API view raises itself, with its own status.

A statement the database cancelled (the web requests' statement timeout,
``config/statement_timeout.py``) is a 503 ``statement_timeout`` with ``Retry-After``,
logged with its traceback (which query), not a 500."""

from __future__ import annotations

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from config.statement_timeout import (
    RETRY_AFTER_SECONDS,
    STATEMENT_TIMEOUT_CODE,
    statement_timed_out,
    statement_timeout_message,
)
from verifier.api.authentication import scheme_hint
from verifier.errors import ApplicationError
from verifier.request_id import current_request_id

logger = logging.getLogger(__name__)


class ApiError(ApplicationError):
    def __init__(
        self,
        code: str,
        message: str,
        *,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        details: Any = None,
    ) -> None:
        super().__init__(code, message, details, status_code=status_code)
        self.details = details if details is not None else {}


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details or {}}}


_DRF_CODES = {
    exceptions.ValidationError: "invalid_request",
    exceptions.ParseError: "malformed_request",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
    exceptions.NotAcceptable: "not_acceptable",
}


def _first_problem(detail: Any, path: str = "") -> tuple[str, str] | None:
    """The first (field path, message) of a DRF validation error's nested detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == "non_field_errors":
                name = path
            elif isinstance(key, int) or str(key).isdigit():
                # a list's item (DRF keys a ListField's errors by index): ``claims[0]``, the
                # path ``unknown_field`` gives
                name = f"{path}[{key}]"
            else:
                name = f"{path}.{key}" if path else str(key)
            found = _first_problem(value, name)
            if found is not None:
                return found
    elif isinstance(detail, list):
        if detail and all(not isinstance(item, dict | list) for item in detail):
            return path, " ".join(str(item) for item in detail)
        for index, value in enumerate(detail):
            found = _first_problem(value, f"{path}[{index}]")
            if found is not None:
                return found
    elif detail:
        return path, str(detail)
    return None


def _invalid_message(detail: Any) -> str:
    """A validation error's message, naming the first field in the wrong and why."""
    found = _first_problem(detail)
    if found is None:
        return "The request is invalid; see details."
    path, problem = found
    return (
        f"The request is invalid: {path}: {problem}"
        if path
        else f"The request is invalid: {problem}"
    )


# ``details.field`` of a problem with the body as a whole: JSON that does not parse, a
# body that is not the object the route takes, one too large to read.
BODY_FIELD = "body"


def _invalid_details(detail: Any) -> Any:
    """A validation error's details: DRF's per-field messages, and ``field``, the path of
    the first field in the wrong (``claims[0].external_id``), as every other 400 names
    its field in ``details.field``; ``body`` when the problem is the body as a whole (a
    list where an object was due, a rule across fields)."""
    found = _first_problem(detail)
    if not isinstance(detail, dict) or found is None or "field" in detail:
        return detail
    return {"field": found[0] or BODY_FIELD, **detail}


def _not_found_message(exc: Http404, context: dict[str, Any]) -> str:
    """Our selectors' own words ("No such webhook."); Django's generic one ("No Claim
    matches the given query.") names a model, so the path is named instead."""
    said = str(exc.args[0]) if exc.args and isinstance(exc.args[0], str) else ""
    if said and "matches the given query" not in said:
        return said
    request = context.get("request")
    path = getattr(request, "path", "")
    return f"Nothing is at {path} in this workspace." if path else "Not found."


def statement_timeout_body() -> dict[str, Any]:
    """The error body of a request whose statement the database cancelled."""
    details = {
        "timeout_seconds": settings.SPANPROOF_DB_STATEMENT_TIMEOUT,
        "request_id": current_request_id(),
    }
    return error_body(STATEMENT_TIMEOUT_CODE, statement_timeout_message(), details)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if statement_timed_out(exc):
        request = context.get("request")
        logger.warning(
            "%s %s: the database cancelled a statement (statement timeout %s s); answered 503 %s",
            getattr(request, "method", "-"),
            getattr(request, "path", "-"),
            settings.SPANPROOF_DB_STATEMENT_TIMEOUT,
            STATEMENT_TIMEOUT_CODE,
            exc_info=exc,
        )
        response = Response(statement_timeout_body(), status=status.HTTP_503_SERVICE_UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    if isinstance(exc, ApplicationError):
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status_code)
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = error_body(
            "payload_too_large",
            f"The request body is larger than {limit} bytes.",
            {"field": BODY_FIELD, "limit": limit},
        )
        return Response(body, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, TooManyFieldsSent):
        return Response(
            error_body(
                "malformed_request", "The request has too many fields.", {"field": BODY_FIELD}
            ),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(_not_found_message(exc, context))
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    if isinstance(exc, exceptions.APIException):
        code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
        if isinstance(exc, exceptions.ValidationError):
            message = _invalid_message(exc.detail)
            details = _invalid_details(exc.detail)
        elif isinstance(exc, exceptions.NotAuthenticated):
            message = scheme_hint(context.get("request")) or str(exc.detail)
            details = {}
        elif isinstance(exc, exceptions.ParseError):
            message = str(exc.detail)
            details = {"field": BODY_FIELD}
        else:
            message = str(exc.detail)
            details = {}
        # Throttled sets ``wait`` (seconds or None); the stubs do not declare it.
        wait = getattr(exc, "wait", None) if isinstance(exc, exceptions.Throttled) else None
        if wait is not None:
            details = {"retry_after": math.ceil(wait), **getattr(exc, "limit_details", {})}
        response = Response(error_body(code, message, details), status=exc.status_code)
        if wait is not None:
            response["Retry-After"] = str(math.ceil(wait))
        # an authentication failure's challenge (set by DRF's APIView; not declared)
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            response["WWW-Authenticate"] = auth_header
        if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
            response["WWW-Authenticate"] = 'Bearer realm="connect"'
            response.status_code = status.HTTP_401_UNAUTHORIZED
        return response
    return None
