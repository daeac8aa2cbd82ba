"""Every answer carries an X-Request-ID (the client's when it is safe, else a new one);
an API 500 names it in its body and its logged traceback, so the two can be matched."""

from __future__ import annotations

import io
import logging
import re

import pytest
from django.conf import settings
from django.test import Client

from tests.verifier.api.conftest import client_for
from verifier.request_id import (
    HEADER,
    MAX_LENGTH,
    RequestIdFormatter,
    RequestIdLogFilter,
    current_request_id,
    request_id_from,
)

pytestmark = pytest.mark.django_db
GENERATED = re.compile(r"[0-9a-f]{32}")


def test_a_safe_client_id_is_kept_and_anything_else_replaced() -> None:
    for safe in ("abc-123", "req.7_A", "x" * MAX_LENGTH, "0"):
        assert request_id_from(safe) == safe
    for unsafe in (None, "", "a b", "x" * (MAX_LENGTH + 1), "id\nforged", "é", "<script>", "a/b"):
        assert GENERATED.fullmatch(request_id_from(unsafe))
    assert request_id_from(None) != request_id_from(None)


def test_every_answer_carries_the_id(client: Client) -> None:
    assert client.get("/healthz", headers={HEADER: "probe-1"})[HEADER] == "probe-1"
    made = client.get("/accounts/login/", headers={HEADER: "bad id"})[HEADER]
    assert GENERATED.fullmatch(made)
    assert GENERATED.fullmatch(client.get("/no/such/page")[HEADER])
    assert current_request_id() == "-"  # reset once the request is answered


def test_an_api_500_names_the_id_in_its_body_and_its_log(workspace, settings) -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(RequestIdLogFilter())
    handler.setFormatter(RequestIdFormatter())
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    # a rate the settings would refuse at start-up, set behind their back: a real 500
    settings.SPANPROOF_API_RATE_PER_KEY = "lots"
    api = client_for(workspace, "read")
    api.raise_request_exception = False
    try:
        response = api.get("/connect/v1/claims", headers={HEADER: "client-run-42"})
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 500
    assert response[HEADER] == "client-run-42"
    error = response.json()["error"]
    assert error["code"] == "server_error"
    assert error["details"] == {"request_id": "client-run-42"}
    logged = out.getvalue()
    assert logged.startswith("[request client-run-42] Internal Server Error: /connect/v1/claims")
    assert "Traceback" in logged


def test_the_settings_install_the_middleware_first_and_the_log_filter() -> None:
    assert settings.MIDDLEWARE[0] == "verifier.request_id.RequestIdMiddleware"
    console = settings.LOGGING["handlers"]["console"]
    assert "request_id" in console["filters"] and console["formatter"] == "request_id"
