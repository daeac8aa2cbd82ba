"""A refused request logs one line, not its traceback; a server error keeps it."""

from __future__ import annotations

import io
import logging
import sys

from django.conf import settings

from verifier.log_filters import ClientErrorsInOneLine


def _logged(status: int) -> str:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(ClientErrorsInOneLine())
    logger = logging.getLogger("django.request.test")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        raise PermissionError("refused")
    except PermissionError:
        logger.warning(
            "Forbidden: /audit/rules/", extra={"status_code": status}, exc_info=sys.exc_info()
        )
    finally:
        logger.removeHandler(handler)
    return out.getvalue()


def test_a_client_error_is_one_line_and_a_server_error_keeps_its_traceback():
    assert _logged(403) == "Forbidden: /audit/rules/\n"
    assert "Traceback" in _logged(500)


def test_the_settings_put_the_filter_on_the_console_handler():
    handler = settings.LOGGING["handlers"]["console"]
    assert "client_errors_in_one_line" in handler["filters"]
    assert settings.LOGGING["filters"]["client_errors_in_one_line"]["()"].endswith(
        "ClientErrorsInOneLine"
    )
